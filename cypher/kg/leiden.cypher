// auto: Leiden communities of the entity graph (Neo4j Graph Data Science): the graph projected
// undirected, each pair of entities weighted by how often a relation between them was extracted
// (in either direction), then hierarchical Leiden with a fixed seed on one thread, so a re-run on
// the same graph, or a rebuild of it, gives the same communities. Returns every entity's
// community at each level, finest first. Entities without a relation have no community.
// Browser: :param graph => 'tripartite-entities'; :param seed => 42; :param max_levels => 10

CALL gds.graph.drop($graph, false) YIELD graphName
RETURN graphName;

MATCH (a:__Entity__)-[r]->(b:__Entity__)
WHERE r.chunks IS NOT NULL AND a <> b
WITH CASE WHEN a.key < b.key THEN a ELSE b END AS source, CASE WHEN a.key < b.key THEN b ELSE a END AS target,
     sum(r.weight) AS weight
// Projected in key order, so the result does not depend on where the store put the nodes.
ORDER BY source.key, target.key
WITH gds.graph.project($graph, source, target, {relationshipProperties: {weight: toFloat(weight)}},
                       {undirectedRelationshipTypes: ['*']}) AS projected
RETURN projected.nodeCount AS nodes, projected.relationshipCount AS relationships;

CALL gds.leiden.stream($graph, {relationshipWeightProperty: 'weight', includeIntermediateCommunities: true,
                                randomSeed: $seed, concurrency: 1, maxLevels: $max_levels})
YIELD nodeId, intermediateCommunityIds
RETURN gds.util.asNode(nodeId).key AS key, intermediateCommunityIds AS levels;
