// The floor of the default selection (each object's best candidate per concept, marked
// floor = true by cypher/selection/classify.cypher) is read per (object, concept) when a prompt
// is built. Evidence without the property is not in this composite index, so it stays small.

CREATE INDEX evidence_floor IF NOT EXISTS FOR (e:Evidence) ON (e.object_id, e.concept_id, e.floor);
