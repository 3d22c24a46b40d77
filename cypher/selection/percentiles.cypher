// read: P_c(w) = (scores of concept c that are <= w) / n for given scores, from each concept's
// histogram (distribution.cypher): the bins' scores below w's bin (the distribution's cumulative
// `below`; none under the lowest bin, all of them over the highest), those of w's own bin up to
// w, and the unbinned scores (the plugin's incremental runs add a new object's there) up to w.
// Asked for the extracts a prompt keeps.
// Browser: :param concepts => [{concept_id: 'hypertension', ws: [0.41, 0.57]}]

UNWIND $concepts AS concept
OPTIONAL MATCH (dist:ScoreDistribution {concept_id: concept.concept_id})
WITH concept, dist.below AS below, dist.low AS low, dist.n AS n, coalesce(dist.unbinned, []) AS unbinned
UNWIND concept.ws AS w
WITH concept, below, low, n, unbinned, w, toInteger(floor(1000 * w)) AS bin
OPTIONAL MATCH (b:ScoreBin {concept_id: concept.concept_id, bin: bin})
WITH concept, w, n, b.upto AS upto, size([v IN b.w WHERE v <= w]) AS i, size([v IN unbinned WHERE v <= w]) AS late,
     CASE WHEN low IS NULL OR bin < low THEN 0
          WHEN bin - low >= size(below) THEN n - size(unbinned)
          ELSE below[bin - low] END AS under
// A concept no object was scored on (n = 0) has no distribution: its P_c(w) is null.
RETURN concept.concept_id AS concept_id, w,
       CASE WHEN n > 0 THEN toFloat(under + CASE WHEN i > 0 THEN upto[i - 1] ELSE 0 END + late) / n END AS p;
