// Every candidate of some objects with its score, percentile and classification; for
// inspection in the Browser (and the tests' comparison with the NumPy reference).
// Browser: :param object_ids => ['patient-a']   (null lists every object's candidates)

MATCH (e:Evidence)
WHERE $object_ids IS NULL OR e.object_id IN $object_ids
MATCH (s:ScoreDistribution {concept_id: e.concept_id})
WITH e, s.scores AS scores, s.n AS n
RETURN e.object_id AS object_id, e.concept_id AS concept_id, e.chunk_id AS chunk_id, e.w AS w,
       toFloat(reduce(r = [0, n], step IN range(1, 64) |
         CASE WHEN r[0] >= r[1] THEN r
              WHEN scores[(r[0] + r[1]) / 2] <= e.w THEN [(r[0] + r[1]) / 2 + 1, r[1]]
              ELSE [r[0], (r[0] + r[1]) / 2] END)[0]) / n AS p,
       coalesce(e.selected, false) AS selected, e.reason AS reason
ORDER BY object_id, concept_id, chunk_id;
