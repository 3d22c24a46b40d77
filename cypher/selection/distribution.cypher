// auto: build P_c (step 2), the empirical distribution of concept c's scores over all objects and chunks:
//   P_c(w) = (number of candidates of c with w' <= w) / n_c.
// It is kept once per concept as a histogram of its scores, in bins of width 0.001 (bin(w) =
// floor(1000 w), at most 2,001 bins whatever n_c is):
//   (:ScoreBin {concept_id, bin, w, upto})   the bin's distinct scores (w, ascending) and, for
//                                            each, how many of the bin's scores are at most it;
//   (:ScoreDistribution {concept_id, n, low, below})  n_c, the lowest bin, and for every bin
//                                            from low up how many scores lie below it.
// So P_c(w) = (below[bin(w) - low] + upto[the last i with w_i <= w]) / n_c: one bin of at most
// 100 values is read (prompt_material), and equal scores share one percentile. A bin changes
// only when a score in its range comes or goes.
// Which distributions are rebuilt here: every one on a full run ($concept_ids null); on an
// incremental run those of $concept_ids that are not current. The scripts' score step marks a
// distribution not current when it rescored its concept; the procedure plugin's updates the
// bins an incremental run touches in place and keeps it current (procedures/, Score.java).
// The plugin may also leave a new object's scores `unbinned`: in the distribution's sorted list
// of that name, counted in n but not in the bins (Histogram.java), which the readers add
// (percentiles.cypher). These scripts keep no unbinned scores: a distribution that has some is
// rebuilt here on any run, so the thresholds below are read from the bins alone.
// Because P_c is a step function of w, "P_c(w) > alpha" is "w >= alpha_w", where alpha_w is
// the score at rank m (1-based) for the smallest m with m / n_c > alpha (computed in floating
// point, exactly as the percentile is); no such m (alpha >= 1) means nothing passes.
// One concept per transaction, $concurrency at a time (a concept's nodes are its own); in the
// Browser put :auto in front.
// Browser: :param concept_ids => null; :param alpha => 0.9; :param beta => 0.5; :param concurrency => 2

MATCH (k:Concept)
WHERE $concept_ids IS NULL OR (k.id IN $concept_ids AND
      NOT EXISTS { MATCH (s:ScoreDistribution {concept_id: k.id}) WHERE s.current })
   OR EXISTS { MATCH (s:ScoreDistribution {concept_id: k.id}) WHERE s.unbinned IS NOT NULL }
CALL (k) {
  // Each distinct score with how often it occurs, by bin: the bin's scores ascending and upto,
  // the running count within the bin; then below, the running count of the bins under each.
  // (Grouping by score, instead of sorting every score, keeps the rows to the distinct ones.)
  CALL (k) {
    OPTIONAL MATCH (:Object)-[oc:CONCERNS]->(k) WHERE oc.scores IS NOT NULL
    UNWIND coalesce(oc.scores, []) AS w
    WITH toInteger(floor(1000 * w)) AS bin, w, count(*) AS times
    ORDER BY bin, w
    WITH bin, collect(w) AS ws, reduce(upto = [], t IN collect(times) | upto + [coalesce(upto[-1], 0) + t]) AS upto
    ORDER BY bin
    WITH collect(bin) AS keys, collect({bin: bin, w: ws, upto: upto}) AS bins,
         reduce(below = [0], t IN collect(upto[-1]) | below + [below[-1] + t]) AS below
    RETURN keys, below[0..-1] AS belows, bins, below[-1] AS n
  }
  MERGE (s:ScoreDistribution {concept_id: k.id})
  // below for every bin from low to high, empty ones included: the count under the first
  // non-empty bin at or above it (a binary search in keys).
  SET s.n = n, s.low = keys[0], s.current = true, s.updated_at = datetime(), s.unbinned = null,
      s.below = [key IN CASE WHEN size(keys) = 0 THEN [] ELSE range(keys[0], keys[-1]) END |
                 belows[reduce(r = [0, size(keys)], step IN range(0, 11) |
                   CASE WHEN r[0] >= r[1] THEN r WHEN keys[(r[0] + r[1]) / 2] < key THEN [(r[0] + r[1]) / 2 + 1, r[1]]
                        ELSE [r[0], (r[0] + r[1]) / 2] END)[0]]]
  WITH s, bins
  CALL (s, bins) {
    UNWIND bins AS row
    MERGE (b:ScoreBin {concept_id: s.concept_id, bin: row.bin})
    SET b.w = row.w, b.upto = row.upto
  }
  // Bins that are empty now: outside low..high, or with as many scores below the next one.
  CALL (s) {
    MATCH (b:ScoreBin) WHERE b.concept_id = s.concept_id AND b.bin IS NOT NULL
    WITH s, b, b.bin - s.low AS i
    WHERE s.low IS NULL OR i < 0 OR i >= size(s.below)
       OR s.below[i] = CASE WHEN i + 1 < size(s.below) THEN s.below[i + 1] ELSE s.n END
    DELETE b
  }
} IN $concurrency CONCURRENT TRANSACTIONS OF 1 ROW;

// Distributions of concepts that are gone (a full run only).
MATCH (s:ScoreDistribution)
WHERE $concept_ids IS NULL AND NOT EXISTS { MATCH (k:Concept {id: s.concept_id}) }
OPTIONAL MATCH (b:ScoreBin) WHERE b.concept_id = s.concept_id AND b.bin IS NOT NULL
DETACH DELETE s, b;

// The thresholds of the alpha and beta steps, for the concepts rebuilt above and for every
// concept when alpha or beta changed since the last run. classified_alpha_w and
// classified_beta_w, written by step 3, keep the thresholds the stored classification reflects.
// The score at 0-based rank r: its bin is the last one with below <= r, then the first of the
// bin's scores whose upto exceeds r - below.
MATCH (s:ScoreDistribution)
WHERE $concept_ids IS NULL OR s.concept_id IN $concept_ids OR s.alpha IS NULL OR s.alpha <> $alpha OR s.beta <> $beta
WITH s, toInteger(floor($alpha * s.n)) AS a, toInteger(floor($beta * s.n)) AS b
WITH s, [m IN range(a - 2, a + 2) WHERE 1 <= m <= s.n AND toFloat(m) / s.n > $alpha][0] - 1 AS alpha_rank,
        [m IN range(b - 2, b + 2) WHERE 1 <= m <= s.n AND toFloat(m) / s.n > $beta][0] - 1 AS beta_rank
WITH s, alpha_rank, beta_rank, size([x IN s.below WHERE x <= alpha_rank]) - 1 AS alpha_at,
     size([x IN s.below WHERE x <= beta_rank]) - 1 AS beta_at
OPTIONAL MATCH (at:ScoreBin {concept_id: s.concept_id, bin: s.low + alpha_at}) WHERE alpha_rank IS NOT NULL
OPTIONAL MATCH (bt:ScoreBin {concept_id: s.concept_id, bin: s.low + beta_at}) WHERE beta_rank IS NOT NULL
SET s.alpha = $alpha, s.beta = $beta,
    s.alpha_w = at.w[size([u IN at.upto WHERE u <= alpha_rank - s.below[alpha_at]])],
    s.beta_w = bt.w[size([u IN bt.upto WHERE u <= beta_rank - s.below[beta_at]])];
