// read: how many candidates there are and how many each step selected (and the floor adds): over the given objects'
// candidates, or over all of them when $object_ids is null.
// Browser: :param object_ids => null

CALL () {
  UNWIND coalesce($object_ids, []) AS object_id
  MATCH (e:Evidence) WHERE e.object_id = object_id AND e.chunk_id IS NOT NULL AND e.concept_id IS NOT NULL
  RETURN e
  UNION ALL
  WITH 1 AS one WHERE $object_ids IS NULL
  MATCH (e:Evidence) WHERE e.concept_id IS NOT NULL AND e.w IS NOT NULL
  RETURN e
}
RETURN count(e) AS candidates, count(DISTINCT e.concept_id) AS concepts,
       count(CASE WHEN e.reason = 'alpha' THEN 1 END) AS alpha,
       count(CASE WHEN e.reason = 'beta' THEN 1 END) AS beta,
       count(CASE WHEN e.floor AND e.reason IS NULL THEN 1 END) AS floor;
