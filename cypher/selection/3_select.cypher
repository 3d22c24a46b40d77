// Steps 3 and 4. The alpha step selects a candidate when P_c(w) > alpha. The Markov-blanket
// step also selects a candidate when it cites the same chunk as an alpha-selected candidate
// of the same object and its own P_c(w) > beta. (One pass is the fixpoint: a beta-selected
// candidate shares its chunk with an alpha-selected one already.)
// $concept_ids limits the alpha step to the concepts whose percentiles were recomputed; the
// blanket is then redone for every object with a candidate in them, since it crosses concepts.
// Runs as auto-commit queries, per concept and per few objects (in the Browser: :auto).
// Browser: :param alpha => 0.9; :param beta => 0.5; :param concept_ids => null

MATCH (k:Concept)
WHERE $concept_ids IS NULL OR k.id IN $concept_ids
CALL (k) {
  MATCH (e:Evidence {concept_id: k.id})
  SET e.selected = e.p > $alpha,
      e.reason = CASE WHEN e.p > $alpha THEN 'alpha' ELSE null END
} IN TRANSACTIONS OF 1 ROWS;

MATCH (o:Object)
WHERE $concept_ids IS NULL OR EXISTS { MATCH (e:Evidence {object_id: o.id}) WHERE e.concept_id IN $concept_ids }
CALL (o) {
  MATCH (x:Evidence {object_id: o.id})
  SET x.alpha = $alpha, x.beta = $beta
  WITH x WHERE x.reason = 'beta'
  SET x.selected = false, x.reason = null
} IN TRANSACTIONS OF 10 ROWS;

MATCH (o:Object)
WHERE $concept_ids IS NULL OR EXISTS { MATCH (e:Evidence {object_id: o.id}) WHERE e.concept_id IN $concept_ids }
CALL (o) {
  MATCH (x:Evidence {object_id: o.id})
  WHERE x.reason IS NULL AND x.p > $beta
    AND EXISTS { MATCH (a:Evidence {object_id: o.id, chunk_id: x.chunk_id}) WHERE a.reason = 'alpha' }
  SET x.selected = true, x.reason = 'beta'
} IN TRANSACTIONS OF 10 ROWS;
