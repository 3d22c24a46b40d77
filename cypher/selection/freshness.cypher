// read: whether one object's prompt can be built from the stored selection, and if not, the one
// line that says why and which command to run (an object changed since: analyze first where it is
// not analysed for every loaded concept); also the alpha and beta of the selection's last run, and
// how many objects there are (doctor: nothing selected is only worth a word once there are some),
// and how many chunks the selection was made without (not analysed for every loaded concept).
// Prompts (the CLI and the Browser procedure) ask this first.
// Browser: :param object_id => 'patient-a'

OPTIONAL MATCH (s:SelectionState {id: 'current'})
OPTIONAL MATCH (v:InputsVersion {id: 'current'})
OPTIONAL MATCH (o:Object {id: $object_id})
WITH s, o, s.alpha AS alpha, s.beta AS beta, CASE WHEN s IS NULL THEN 'none'
                WHEN s.state = 'converting' THEN 'converting'
                WHEN s.state <> 'finished' THEN 'unfinished'
                WHEN coalesce(s.inputs, -1) <> coalesce(v.version, 0) THEN 'stale'
                WHEN size(coalesce(s.pending_concepts, [])) > 0 THEN 'removed'
                WHEN o.selection_stale AND any(k IN COLLECT { MATCH (c:Concept) RETURN c.id }
                                               WHERE NOT k IN coalesce(o.analysed_concepts, [])) THEN 'unanalysed'
                WHEN o.selection_stale THEN 'object'
                ELSE 'fresh' END AS freshness
RETURN freshness, alpha, beta, COUNT { (:Object) } AS objects, s.chunks AS chunks,
       s.unanalysed_chunks AS unanalysed_chunks, CASE freshness
  WHEN 'none' THEN 'nothing has been selected yet; run `tripartite select`'
  WHEN 'converting' THEN 'the selection store is being converted to its new form (migration V012); run `tripartite '
                         + 'migrate`, which finishes it'
  WHEN 'unfinished' THEN 'the last `tripartite select` (alpha ' + toString(s.alpha) + ', beta ' + toString(s.beta)
                         + ') did not finish and left a mix of old and new classes; run `tripartite select` again'
  WHEN 'stale' THEN 'documents, ontologies or chunk extracts changed since the last full `tripartite select`; run '
                    + '`tripartite select` again'
  WHEN 'removed' THEN 'objects were removed since the last `tripartite select`, so the score distributions of '
                      + toString(size(s.pending_concepts)) + ' concepts still count them; run `tripartite select`'
  WHEN 'unanalysed' THEN 'object ' + o.id + ' is new or changed and not analysed yet; run `tripartite analyze`, then '
                         + '`tripartite select --object ' + o.id + '`'
  WHEN 'object' THEN 'object ' + o.id + ' changed since the last `tripartite select`; run `tripartite select --object '
                     + o.id + '`'
  END AS hint;
