// write: the selection run finished: its objects (all of them, on a full run) are up to date, and
// so are the distributions it rebuilt ($scope.rebuilt: those concept ids; null on a full run,
// which rebuilt every one) of concepts whose objects were removed. A full run also notes how many
// chunks were not analysed for every loaded concept ($chunks: {chunks, unanalysed} from
// analysis/unanalysed.cypher; null on an incremental run, which analysis would have made full):
// their extracts are in no candidate, so every prompt from this selection says it lacks them
// (freshness.cypher hands the count on).
// The objects come inside a map ($scope): the server plans a list parameter anew for each
// size of list (and for null), a map once, so a full run, a change of alpha and any number of
// objects share one plan.
// Browser: :param run => '...'; :param scope => {object_ids: null, rebuilt: null}; :param chunks => null

MATCH (s:SelectionState {id: 'current', run: $run})
REMOVE s.converting
SET s.state = 'finished', s.finished_at = datetime(),
    s.pending_concepts = [c IN coalesce(s.pending_concepts, []) WHERE NOT c IN coalesce($scope.rebuilt, [c])]
SET s.chunks = coalesce($chunks.chunks, s.chunks), s.unanalysed_chunks = coalesce($chunks.unanalysed, s.unanalysed_chunks)
WITH s
UNWIND CASE WHEN $scope.object_ids IS NULL THEN [null] ELSE $scope.object_ids END AS object_id
MATCH (o:Object) WHERE o.selection_stale AND (object_id IS NULL OR o.id = object_id)
REMOVE o.selection_stale;
