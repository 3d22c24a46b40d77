// write: remove a loaded ontology and everything derived from it: its concepts with their extract
// edges (MENTIONED_IN, CONCERNS) and triplet-graph links, its classes, the Evidence selected for
// its concepts, their score distributions and bins, and its concepts' ids from the chunks' and
// objects' lists of what they were analysed for (so loading it again analyses them again; the
// LLM's answers stay cached). Run in one transaction with selection/inputs_changed.
// Browser: :param ontology_id => 'cardiology'

MATCH (c:Concept {ontology: $ontology_id})
WITH collect(c.id) AS gone
CALL (gone) {
  MATCH (e:Evidence) WHERE e.concept_id IN gone
  DETACH DELETE e
}
CALL (gone) {
  MATCH (b:ScoreBin) WHERE b.concept_id IN gone
  DETACH DELETE b
}
CALL (gone) {
  MATCH (s:ScoreDistribution) WHERE s.concept_id IN gone
  DETACH DELETE s
}
// Concept ids carry their ontology's name as a prefix: one test per listed id, however many go.
CALL () {
  MATCH (t:Chunk) WHERE any(id IN t.analysed_concepts WHERE id STARTS WITH $ontology_id + ':')
  SET t.analysed_concepts = [id IN t.analysed_concepts WHERE NOT id STARTS WITH $ontology_id + ':']
}
CALL () {
  MATCH (o:Object) WHERE any(id IN o.analysed_concepts WHERE id STARTS WITH $ontology_id + ':')
  SET o.analysed_concepts = [id IN o.analysed_concepts WHERE NOT id STARTS WITH $ontology_id + ':']
}
RETURN size(gone) AS concepts;

MATCH (c:Concept {ontology: $ontology_id})
DETACH DELETE c;

MATCH (k:ConceptClass {ontology: $ontology_id})
DETACH DELETE k;

MATCH (o:Ontology {id: $ontology_id})
DETACH DELETE o;
