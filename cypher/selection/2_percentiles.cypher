// Step 2: P_c, the empirical distribution of concept c's scores over all objects and chunks:
//   P_c(w) = (number of candidates of c with w' <= w) / n_c.
// It is kept once per concept, as the sorted list of its scores on (:ScoreDistribution), not
// on every Evidence node: a new object then rewrites the lists of the concepts it touches
// and nothing else. Equal scores share one percentile (ties are equal rounded w).
// Because P_c is a step function of w, "P_c(w) > alpha" is "w >= alpha_w", where alpha_w is
// the score at rank m (1-based) for the smallest m with m / n_c > alpha (computed in floating
// point, exactly as the percentile is); no such m (alpha >= 1) means nothing passes.
// One transaction per concept; runs as auto-commit queries (in the Browser: :auto).
// Browser: :param concept_ids => null; :param alpha => 0.9; :param beta => 0.5

MATCH (k:Concept)
WHERE $concept_ids IS NULL OR k.id IN $concept_ids
CALL (k) {
  MATCH (e:Evidence) WHERE e.concept_id = k.id AND e.w IS NOT NULL
  WITH e.w AS w ORDER BY w
  WITH collect(w) AS scores
  MERGE (s:ScoreDistribution {concept_id: k.id})
  SET s.scores = scores, s.n = size(scores)
} IN TRANSACTIONS OF 1 ROWS;

// Distributions of concepts that are gone (a full run only).
MATCH (s:ScoreDistribution)
WHERE $concept_ids IS NULL AND NOT EXISTS { MATCH (k:Concept {id: s.concept_id}) }
DELETE s;

// The thresholds of the alpha and beta steps, for every concept (alpha and beta may have
// changed since the last run). classified_alpha_w / classified_beta_w, written by step 3,
// keep the thresholds the stored classification reflects.
MATCH (s:ScoreDistribution)
WITH s, toInteger(floor($alpha * s.n)) AS a, toInteger(floor($beta * s.n)) AS b
WITH s, [m IN range(a - 2, a + 2) WHERE 1 <= m <= s.n AND toFloat(m) / s.n > $alpha][0] AS alpha_rank,
        [m IN range(b - 2, b + 2) WHERE 1 <= m <= s.n AND toFloat(m) / s.n > $beta][0] AS beta_rank
SET s.alpha = $alpha, s.beta = $beta, s.alpha_w = s.scores[alpha_rank - 1], s.beta_w = s.scores[beta_rank - 1];
