// read: the concepts one BROADER step above ($direction 'broader') or below ('narrower') the given ones, with
// their class and how many concepts lie directly above and below each (the MCP tool walk_concepts walks the
// hierarchy a step at a time with it). At most $limit concepts, by name.
// Browser: :param concept_ids => ['cardiology:heart_failure']; :param direction => 'narrower'; :param limit => 50

UNWIND $concept_ids AS from_id
MATCH (f:Concept {id: from_id})-[r:BROADER]-(c:Concept)
WHERE (startNode(r) = f) = ($direction = 'broader') AND c <> f
WITH c, min(from_id) AS reached_from
ORDER BY c.name, c.id
LIMIT $limit
RETURN c.id AS id, c.name AS name, c.ontology AS ontology, reached_from,
       head(COLLECT { MATCH (c)-[:IN_CLASS]->(k:ConceptClass) RETURN k.name AS name ORDER BY name }) AS class,
       COUNT { (c)-[:BROADER]->(:Concept) } AS broader, COUNT { (:Concept)-[:BROADER]->(c) } AS narrower
ORDER BY name, id;
