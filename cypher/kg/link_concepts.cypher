// write: join the triplet graph to the ontology: an entity whose name is a concept's name or one
// of its synonyms (case aside) IS_CONCEPT that concept. Redrawn for every entity.

MATCH (c:Concept)
WITH collect({concept: c, names: [n IN [c.name] + coalesce(c.synonyms, []) | toLower(trim(n))]}) AS concepts
MATCH (e:__Entity__)
OPTIONAL MATCH (e)-[old:IS_CONCEPT]->(:Concept)
DELETE old
WITH DISTINCT e, concepts
UNWIND [x IN concepts WHERE toLower(trim(e.name)) IN x.names] AS hit
WITH e, hit.concept AS c
MERGE (e)-[:IS_CONCEPT]->(c);
