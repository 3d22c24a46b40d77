// auto: build P_c (step 2), the empirical distribution of concept c's scores over all objects and chunks:
//   P_c(w) = (number of candidates of c with w' <= w) / n_c.
// It is kept once per concept, not on every Evidence node, so a new object rewrites the
// distributions of the concepts it touches and nothing else. Equal scores (equal rounded w)
// share one percentile.
// The sorted scores are stored in blocks of 256, (:ScoreBlock {concept_id, block, scores}),
// under (:ScoreDistribution {concept_id, n, bounds}), bounds holding each block's first score:
// a percentile then reads one small block, not the whole distribution (see prompt_material).
// Because P_c is a step function of w, "P_c(w) > alpha" is "w >= alpha_w", where alpha_w is
// the score at rank m (1-based) for the smallest m with m / n_c > alpha (computed in floating
// point, exactly as the percentile is); no such m (alpha >= 1) means nothing passes.
// Two concepts per transaction, $concurrency transactions at a time (a concept's nodes are its own);
// in the Browser put :auto in front.
// Browser: :param concept_ids => null; :param alpha => 0.9; :param beta => 0.5; :param concurrency => 2

MATCH (k:Concept)
WHERE $concept_ids IS NULL OR k.id IN $concept_ids
CALL (k) {
  MATCH (e:Evidence) WHERE e.concept_id = k.id AND e.w IS NOT NULL
  WITH e.w AS w ORDER BY w
  WITH collect(w) AS scores, 256 AS block_size
  MERGE (s:ScoreDistribution {concept_id: k.id})
  SET s.n = size(scores), s.block_size = block_size, s.rebuilt_at = datetime(),
      s.bounds = [i IN range(0, size(scores) - 1, block_size) | scores[i]]
  WITH s, scores, block_size
  CALL (s, scores, block_size) {
    UNWIND range(0, size(s.bounds) - 1) AS block
    MERGE (b:ScoreBlock {concept_id: s.concept_id, block: block})
    SET b.scores = scores[block * block_size .. (block + 1) * block_size]
  }
  CALL (s) {
    MATCH (b:ScoreBlock) WHERE b.concept_id = s.concept_id AND b.block >= size(s.bounds)
    DELETE b
  }
} IN $concurrency CONCURRENT TRANSACTIONS OF 2 ROWS;

// Distributions of concepts that are gone (a full run only).
MATCH (s:ScoreDistribution)
WHERE $concept_ids IS NULL AND NOT EXISTS { MATCH (k:Concept {id: s.concept_id}) }
OPTIONAL MATCH (b:ScoreBlock) WHERE b.concept_id = s.concept_id AND b.block IS NOT NULL
DELETE s, b;

// The thresholds of the alpha and beta steps, for the concepts rebuilt above and for every
// concept when alpha or beta changed since the last run. classified_alpha_w and
// classified_beta_w, written by step 3, keep the thresholds the stored classification reflects.
MATCH (s:ScoreDistribution)
WHERE $concept_ids IS NULL OR s.concept_id IN $concept_ids OR s.alpha IS NULL OR s.alpha <> $alpha OR s.beta <> $beta
WITH s, toInteger(floor($alpha * s.n)) AS a, toInteger(floor($beta * s.n)) AS b
WITH s, [m IN range(a - 2, a + 2) WHERE 1 <= m <= s.n AND toFloat(m) / s.n > $alpha][0] - 1 AS alpha_index,
        [m IN range(b - 2, b + 2) WHERE 1 <= m <= s.n AND toFloat(m) / s.n > $beta][0] - 1 AS beta_index
OPTIONAL MATCH (at:ScoreBlock {concept_id: s.concept_id, block: alpha_index / s.block_size})
OPTIONAL MATCH (bt:ScoreBlock {concept_id: s.concept_id, block: beta_index / s.block_size})
SET s.alpha = $alpha, s.beta = $beta,
    s.alpha_w = at.scores[alpha_index % s.block_size], s.beta_w = bt.scores[beta_index % s.block_size];
