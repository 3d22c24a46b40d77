// Steps 3 and 4. The alpha step selects a candidate when P_c(w) > alpha. The Markov-blanket
// step also selects a candidate when it cites the same chunk as an alpha-selected candidate
// of the same object and its own P_c(w) > beta. (One pass is the fixpoint: a beta-selected
// candidate shares its chunk with an alpha-selected one already.)
// $concept_ids limits the alpha step to the concepts whose percentiles were recomputed; the
// blanket then is redone for every object with a candidate in them, since it crosses concepts.
// Browser: :param alpha => 0.9; :param beta => 0.5; :param concept_ids => null

MATCH (e:Evidence)
WHERE $concept_ids IS NULL OR e.concept_id IN $concept_ids
SET e.selected = e.p > $alpha,
    e.reason = CASE WHEN e.p > $alpha THEN 'alpha' ELSE null END;

MATCH (e:Evidence)
WHERE $concept_ids IS NULL OR e.concept_id IN $concept_ids
WITH DISTINCT e.object_id AS object_id
MATCH (x:Evidence {object_id: object_id})
SET x.alpha = $alpha, x.beta = $beta
WITH x WHERE x.reason = 'beta'
SET x.selected = false, x.reason = null;

MATCH (e:Evidence)
WHERE $concept_ids IS NULL OR e.concept_id IN $concept_ids
WITH DISTINCT e.object_id AS object_id
MATCH (x:Evidence {object_id: object_id})
WHERE x.reason IS NULL AND x.p > $beta
  AND EXISTS { MATCH (a:Evidence {object_id: x.object_id, chunk_id: x.chunk_id}) WHERE a.reason = 'alpha' }
SET x.selected = true, x.reason = 'beta';
