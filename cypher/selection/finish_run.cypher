// write: the selection run finished: its objects (all of them, on a full run) are up to date, and
// so are the distributions it rebuilt ($rebuilt: those concept ids; null on a full run, which rebuilt
// every one) of concepts whose objects were removed.
// Browser: :param run => '...'; :param object_ids => null; :param rebuilt => null

MATCH (s:SelectionState {id: 'current', run: $run})
SET s.state = 'finished', s.finished_at = datetime(),
    s.pending_concepts = [c IN coalesce(s.pending_concepts, []) WHERE NOT c IN coalesce($rebuilt, [c])]
WITH s
UNWIND CASE WHEN $object_ids IS NULL THEN [null] ELSE $object_ids END AS object_id
MATCH (o:Object) WHERE o.selection_stale AND (object_id IS NULL OR o.id = object_id)
REMOVE o.selection_stale;
