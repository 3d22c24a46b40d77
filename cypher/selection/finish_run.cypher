// write: the selection run finished: its objects (all of them, on a full run) are up to date, and
// so are the distributions it rebuilt ($scope.rebuilt: those concept ids; null on a full run,
// which rebuilt every one) of concepts whose objects were removed. It also notes how many chunks
// were not analysed for every loaded concept: their extracts are in no candidate, so every prompt
// from this selection lacks them and says so (freshness.cypher hands the count on).
// The objects come inside a map ($scope): the server plans a list parameter anew for each
// size of list (and for null), a map once, so a full run, a change of alpha and any number of
// objects share one plan.
// Browser: :param run => '...'; :param scope => {object_ids: null, rebuilt: null}

MATCH (s:SelectionState {id: 'current', run: $run})
REMOVE s.converting
SET s.state = 'finished', s.finished_at = datetime(),
    s.pending_concepts = [c IN coalesce(s.pending_concepts, []) WHERE NOT c IN coalesce($scope.rebuilt, [c])]
WITH s, COLLECT { MATCH (k:Concept) RETURN k.id } AS concept_ids
SET s.chunks = COUNT { (:Chunk) },
    s.unanalysed_chunks = COUNT { (c:Chunk) WHERE any(id IN concept_ids WHERE NOT id IN coalesce(c.analysed_concepts, [])) }
WITH s
UNWIND CASE WHEN $scope.object_ids IS NULL THEN [null] ELSE $scope.object_ids END AS object_id
MATCH (o:Object) WHERE o.selection_stale AND (object_id IS NULL OR o.id = object_id)
REMOVE o.selection_stale;
