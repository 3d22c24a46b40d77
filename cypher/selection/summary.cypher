// read: how many candidates there are and how many each step selected (and the floor adds): over the given objects'
// candidates, or over all of them when $scope.object_ids is null.
// The objects come inside a map ($scope): the server plans a list parameter anew for each
// size of list (and for null), a map once, so a full run, a change of alpha and any number of
// objects share one plan.
// Browser: :param scope => {object_ids: null}

CALL () {
  MATCH (o:Object)-[oc:CONCERNS]->(k:Concept)
  WHERE ($scope.object_ids IS NULL OR o.id IN $scope.object_ids) AND oc.scores IS NOT NULL
  RETURN sum(size(oc.scores)) AS candidates, count(DISTINCT k) AS concepts
}
CALL () {
  MATCH (e:Evidence)
  WHERE $scope.object_ids IS NULL OR e.object_id IN $scope.object_ids
  UNWIND e.reasons AS reason
  RETURN count(CASE WHEN reason = 'alpha' THEN 1 END) AS alpha, count(CASE WHEN reason = 'beta' THEN 1 END) AS beta,
         count(CASE WHEN reason = 'floor' THEN 1 END) AS floor
}
RETURN candidates, concepts, alpha, beta, floor;
