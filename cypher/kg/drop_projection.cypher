// write: drop the entity graph's projection from the GDS catalog.
// Browser: :param graph => 'tripartite-entities'

CALL gds.graph.drop($graph, false) YIELD graphName
RETURN count(graphName) AS dropped;
