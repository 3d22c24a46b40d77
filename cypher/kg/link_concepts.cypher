// auto: join the triplet graph to the ontology: an entity whose name is a concept's name or one
// of its synonyms (case and spacing aside) IS_CONCEPT that concept. Each concept's names are
// looked up in the entity keys' index (a key starts with the entity's normalised name, see
// tripartite/kg/schema.py: entity_key), so the work grows with the concepts' names and the links,
// not with entities times concepts; both statements commit in batches, so a 20,000-concept
// ontology beside a large triplet graph stays within the server's transaction memory.

// Links whose concept no longer has that name (a reworded concept, a synonym dropped).
MATCH (e:__Entity__)-[link:IS_CONCEPT]->(c:Concept)
WHERE NOT split(e.key, '|')[0] IN [n IN [c.name] + coalesce(c.synonyms, []) | toLower(trim(n))]
CALL (link) {
  DELETE link
} IN TRANSACTIONS OF 10000 ROWS;

MATCH (c:Concept)
UNWIND [n IN [c.name] + coalesce(c.synonyms, []) | toLower(trim(n))] AS name
WITH DISTINCT c, name WHERE name <> ''
CALL (c, name) {
  MATCH (e:__Entity__) WHERE e.key STARTS WITH name + '|'
  MERGE (e)-[:IS_CONCEPT]->(c)
} IN TRANSACTIONS OF 2000 ROWS;
