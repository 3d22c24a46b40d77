// read: every candidate of some objects with its score, percentile, classification and floor mark; for
// inspection in the Browser (and the tests' comparison with the NumPy reference).
// p = P_c(w), read from the concept's score blocks as in prompt_material.
// Browser: :param object_ids => ['patient-a']   (null lists every object's candidates)

MATCH (e:Evidence)
WHERE $object_ids IS NULL OR e.object_id IN $object_ids
MATCH (s:ScoreDistribution {concept_id: e.concept_id})
WITH e, s, size([v IN s.bounds WHERE v <= e.w]) - 1 AS block
MATCH (b:ScoreBlock {concept_id: s.concept_id, block: block})
RETURN e.object_id AS object_id, e.concept_id AS concept_id, e.chunk_id AS chunk_id, e.w AS w,
       toFloat(block * s.block_size + size([v IN b.scores WHERE v <= e.w])) / s.n AS p,
       coalesce(e.selected, false) AS selected, e.reason AS reason, coalesce(e.floor, false) AS floor
ORDER BY object_id, concept_id, chunk_id;
