// read: what a loaded ontology brought and what was derived from it, as `ontology remove`
// reports it: classes, concepts, extract edges (chunk and object), selected Evidence, score
// distributions. No row when the ontology is not loaded.
// Browser: :param ontology_id => 'cardiology'

MATCH (o:Ontology {id: $ontology_id})
CALL (o) {
  MATCH (c:Concept {ontology: o.id})
  RETURN count(c) AS concepts, sum(COUNT { (c)-[:MENTIONED_IN]->(:Chunk) }) AS chunk_extracts,
         sum(COUNT { (:Object)-[:CONCERNS]->(c) }) AS object_extracts,
         collect(c.id) AS concept_ids
}
RETURN o.id AS ontology, COUNT { (:ConceptClass {ontology: o.id}) } AS classes, concepts,
       chunk_extracts, object_extracts,
       COUNT { MATCH (e:Evidence) WHERE e.concept_id IN concept_ids } AS evidence,
       COUNT { MATCH (s:ScoreDistribution) WHERE s.concept_id IN concept_ids } AS distributions;
