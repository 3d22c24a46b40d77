// write: a selection run starts: until finish_run, prompts refuse the mixed state it may leave
// if it is interrupted. It remembers which inputs it saw and with which alpha and beta, and
// whether it converts the store migration V012 left (so that a conversion interrupted by a kill
// is still one: the next `tripartite migrate` runs it again).
// The objects come inside a map ($scope): the server plans a list parameter anew for each
// size of list (and for null), a map once, so a full run, a change of alpha and any number of
// objects share one plan.
// Browser: :param run => randomUUID(); :param alpha => 0.9; :param beta => 0.5; :param scope => {object_ids: null}

OPTIONAL MATCH (v:InputsVersion {id: 'current'})
MERGE (s:SelectionState {id: 'current'})
SET s.converting = coalesce(s.converting, false) OR s.state = 'converting'
SET s.state = 'running', s.run = $run, s.alpha = $alpha, s.beta = $beta, s.started_at = datetime(),
    s.finished_at = null, s.store = 2, s.scope = CASE WHEN $scope.object_ids IS NULL THEN 'all' ELSE 'objects' END,
    s.inputs = CASE WHEN $scope.object_ids IS NULL THEN coalesce(v.version, 0) ELSE s.inputs END;
