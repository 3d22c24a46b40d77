// write: remove objects with everything derived from them: their CONCERNS extracts and their
// Evidence. The concepts whose score distributions they took part in are remembered on the
// selection state (pending_concepts): prompts wait for the next `tripartite select`, which
// rebuilds those distributions and reclassifies what their moved thresholds change.
// Browser: :param object_ids => ['patient-a']

UNWIND $object_ids AS id
MATCH (o:Object {id: id})
CALL (o) {
  MATCH (e:Evidence) WHERE e.object_id = o.id AND e.concept_id IS NOT NULL
  WITH collect(e) AS evidence, collect(DISTINCT e.concept_id) AS concepts
  FOREACH (e IN evidence | DETACH DELETE e)
  RETURN size(evidence) AS candidates, concepts
}
WITH o, candidates, concepts
OPTIONAL MATCH (s:SelectionState {id: 'current'})
SET s.pending_concepts = reduce(kept = coalesce(s.pending_concepts, []), c IN concepts |
                                CASE WHEN c IN kept THEN kept ELSE kept + c END)
WITH o, o.id AS id, candidates
DETACH DELETE o
RETURN id, candidates
ORDER BY id;
