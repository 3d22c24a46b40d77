// read: how many candidates there are and how many each step selected (and the floor adds): over the given objects'
// candidates, or over all of them when $object_ids is null.
// Browser: :param object_ids => null

CALL () {
  MATCH (o:Object)-[oc:CONCERNS]->(k:Concept)
  WHERE ($object_ids IS NULL OR o.id IN $object_ids) AND oc.scores IS NOT NULL
  RETURN sum(size(oc.scores)) AS candidates, count(DISTINCT k) AS concepts
}
CALL () {
  MATCH (e:Evidence)
  WHERE $object_ids IS NULL OR e.object_id IN $object_ids
  UNWIND e.reasons AS reason
  RETURN count(CASE WHEN reason = 'alpha' THEN 1 END) AS alpha, count(CASE WHEN reason = 'beta' THEN 1 END) AS beta,
         count(CASE WHEN reason = 'floor' THEN 1 END) AS floor
}
RETURN candidates, concepts, alpha, beta, floor;
