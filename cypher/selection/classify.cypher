// auto: classify the candidates (steps 3 and 4), node classification of the Evidence nodes:
//   alpha step:  a candidate is selected when P_c(w) > alpha, i.e. w >= its concept's alpha_w;
//   beta step:   the Markov blanket also selects a candidate when it cites the same chunk as
//                an alpha-selected candidate of the same object and P_c(w) > beta (w >= beta_w).
// Both depend only on the group of an object's candidates that cite one chunk, so the
// classification is recomputed group by group and written only where it changes:
// selected = true and reason = 'alpha' | 'beta' on selected Evidence, neither on the others.
// (One pass is the fixpoint: a beta-selected candidate shares its chunk with an alpha one.)
// $concurrency transactions at a time (groups never share an Evidence node); in the Browser put :auto
// in front.
// Browser: :param object_ids => null   (null classifies every object); :param concurrency => 2

// Every group of the given objects (all objects on a full run). The same pass marks the
// floor, a step beyond the paper: each (object, concept) pair's best candidate (highest w,
// then the smallest chunk id) gets floor = true, and the prompt's default selection keeps it
// whatever alpha and beta say (see prompt_material). It depends on the object's own scores
// alone, so the second statement below never needs to touch it.
MATCH (o:Object)
WHERE $object_ids IS NULL OR o.id IN $object_ids
CALL (o) {
  MATCH (e:Evidence) WHERE e.object_id = o.id AND e.chunk_id IS NOT NULL AND e.concept_id IS NOT NULL
  WITH e ORDER BY e.w DESC, e.chunk_id
  WITH e.concept_id AS concept_id, collect(e) AS ranked
  OPTIONAL MATCH (s:ScoreDistribution {concept_id: concept_id})
  UNWIND range(0, size(ranked) - 1) AS i
  WITH ranked[i] AS e, i = 0 AS best, coalesce(ranked[i].w >= s.alpha_w, false) AS passes_alpha,
       coalesce(ranked[i].w >= s.beta_w, false) AS passes_beta
  WITH e.chunk_id AS chunk_id, collect({e: e, best: best, alpha: passes_alpha, beta: passes_beta}) AS grp
  WITH grp, any(x IN grp WHERE x.alpha) AS anchored
  UNWIND grp AS x
  WITH x.e AS e, x.best AS best, CASE WHEN x.alpha THEN 'alpha' WHEN anchored AND x.beta THEN 'beta' END AS reason
  WHERE coalesce(e.reason, '') <> coalesce(reason, '') OR coalesce(e.floor, false) <> best
  SET e.reason = reason, e.selected = CASE WHEN reason IS NOT NULL THEN true END,
      e.floor = CASE WHEN best THEN true END
} IN $concurrency CONCURRENT TRANSACTIONS OF 10 ROWS;

// Incremental runs: when a concept's thresholds moved (new scores, or new alpha and beta),
// only candidates whose w lies between the old and the new threshold change their own test;
// their groups, in any object, are classified again. A concept never classified by this step
// (a new one) has all its candidates taken: w >= -2 covers every cosine.
MATCH (s:ScoreDistribution)
WHERE $object_ids IS NOT NULL
UNWIND CASE WHEN s.classified IS NULL THEN [[-2.0, null]]
            ELSE [[s.classified_alpha_w, s.alpha_w], [s.classified_beta_w, s.beta_w]] END AS moved
WITH s, moved WHERE (moved[0] IS NULL) <> (moved[1] IS NULL) OR moved[0] <> moved[1]
// A missing threshold means "nothing passes": the range then runs to the top.
WITH s.concept_id AS concept_id,
     CASE WHEN moved[0] IS NULL THEN moved[1] WHEN moved[1] IS NULL THEN moved[0]
          WHEN moved[0] < moved[1] THEN moved[0] ELSE moved[1] END AS low,
     CASE WHEN moved[0] IS NULL OR moved[1] IS NULL THEN null
          WHEN moved[0] < moved[1] THEN moved[1] ELSE moved[0] END AS high
MATCH (d:Evidence) WHERE d.concept_id = concept_id AND d.w >= low AND (high IS NULL OR d.w < high)
WITH DISTINCT d.object_id AS object_id, d.chunk_id AS chunk_id
CALL (object_id, chunk_id) {
  MATCH (e:Evidence) WHERE e.object_id = object_id AND e.chunk_id = chunk_id AND e.concept_id IS NOT NULL
  MATCH (s:ScoreDistribution {concept_id: e.concept_id})
  WITH e, coalesce(e.w >= s.alpha_w, false) AS passes_alpha, coalesce(e.w >= s.beta_w, false) AS passes_beta
  WITH collect({e: e, alpha: passes_alpha, beta: passes_beta}) AS grp
  WITH grp, any(x IN grp WHERE x.alpha) AS anchored
  UNWIND grp AS x
  WITH x.e AS e, CASE WHEN x.alpha THEN 'alpha' WHEN anchored AND x.beta THEN 'beta' END AS reason
  WHERE coalesce(e.reason, '') <> coalesce(reason, '')
  SET e.reason = reason, e.selected = CASE WHEN reason IS NOT NULL THEN true END
} IN $concurrency CONCURRENT TRANSACTIONS OF 1000 ROWS;

// The stored classification now reflects the current thresholds.
MATCH (s:ScoreDistribution)
SET s.classified = true, s.classified_alpha_w = s.alpha_w, s.classified_beta_w = s.beta_w;
