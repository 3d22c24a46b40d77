// The triplet graph (DB-GPT's GraphRAG, cypher/kg/): an entity is one node per normalised name
// and type, a community one node per member set (and level); local search finds entities by name.

CREATE CONSTRAINT entity_key IF NOT EXISTS FOR (e:__Entity__) REQUIRE e.key IS UNIQUE;
CREATE CONSTRAINT community_id IF NOT EXISTS FOR (c:Community) REQUIRE c.id IS UNIQUE;
CREATE INDEX community_level IF NOT EXISTS FOR (c:Community) ON (c.level);
CREATE FULLTEXT INDEX entity_names IF NOT EXISTS FOR (e:__Entity__) ON EACH [e.name, e.description];
