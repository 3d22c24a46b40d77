// write: the selection run finished: its objects (all of them, on a full run) are up to date.
// Browser: :param run => '...'; :param object_ids => null

MATCH (s:SelectionState {id: 'current', run: $run})
SET s.state = 'finished', s.finished_at = datetime()
WITH s
UNWIND CASE WHEN $object_ids IS NULL THEN [null] ELSE $object_ids END AS object_id
MATCH (o:Object) WHERE o.selection_stale AND (object_id IS NULL OR o.id = object_id)
REMOVE o.selection_stale;
