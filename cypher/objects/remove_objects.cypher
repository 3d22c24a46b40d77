// write: remove objects with everything derived from them: their CONCERNS extracts and their
// Evidence. The concepts whose score distributions they took part in are remembered on the
// selection state (pending_concepts): prompts wait for the next `tripartite select`, which
// rebuilds those distributions and reclassifies what their moved thresholds change.
// Browser: :param object_ids => ['patient-a']

UNWIND $object_ids AS id
MATCH (o:Object {id: id})
CALL (o) {
  OPTIONAL MATCH (o)-[oc:CONCERNS]->(k:Concept) WHERE oc.scores IS NOT NULL
  WITH o, sum(size(oc.scores)) AS candidates, collect(k.id) AS scored
  OPTIONAL MATCH (e:Evidence {object_id: o.id})
  WITH candidates, scored, collect(e) AS evidence, collect(e.concept_id) AS selected
  FOREACH (e IN evidence | DELETE e)
  RETURN candidates, scored + [c IN selected WHERE NOT c IN scored] AS concepts
}
WITH o, candidates, concepts
CALL (concepts) {  // their histograms still count the object's scores
  UNWIND concepts AS concept_id
  MATCH (d:ScoreDistribution {concept_id: concept_id})
  SET d.current = false
}
OPTIONAL MATCH (s:SelectionState {id: 'current'})
SET s.pending_concepts = reduce(kept = coalesce(s.pending_concepts, []), c IN concepts |
                                CASE WHEN c IN kept THEN kept ELSE kept + c END)
WITH o, o.id AS id, candidates
DETACH DELETE o
RETURN id, candidates
ORDER BY id;
