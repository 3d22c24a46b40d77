// Steps 3 and 4: the alpha step selects a candidate when P_c(w) > alpha; the Markov-blanket
// step also selects a candidate when it cites the same chunk as an alpha-selected candidate
// of the same object and its own P_c(w) > beta. (One pass is the fixpoint: a beta-selected
// candidate shares its chunk with an alpha-selected one already.)
// Browser: :param alpha => 0.9; :param beta => 0.5; :param concept_ids => null

MATCH (e:Evidence)
WHERE $concept_ids IS NULL OR e.concept_id IN $concept_ids
SET e.selected = e.p > $alpha,
    e.reason = CASE WHEN e.p > $alpha THEN 'alpha' ELSE null END,
    e.alpha = $alpha, e.beta = $beta;

MATCH (e:Evidence)
WHERE ($concept_ids IS NULL OR e.concept_id IN $concept_ids)
  AND e.reason IS NULL AND e.p > $beta
  AND EXISTS { MATCH (x:Evidence {object_id: e.object_id, chunk_id: e.chunk_id}) WHERE x.reason = 'alpha' }
SET e.selected = true, e.reason = 'beta';
