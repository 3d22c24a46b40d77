// read: P_c(w) = (scores of concept c that are <= w) / n for given scores, from each concept's
// histogram (distribution.cypher): the scores in the bins below w's bin (the distribution's
// cumulative `below`), plus those of w's own bin up to w. Asked for the extracts a prompt keeps.
// Browser: :param concepts => [{concept_id: 'hypertension', ws: [0.41, 0.57]}]

UNWIND $concepts AS concept
OPTIONAL MATCH (dist:ScoreDistribution {concept_id: concept.concept_id})
WITH concept, dist.below AS below, dist.low AS low, dist.n AS n
UNWIND concept.ws AS w
WITH concept, below, low, n, w, toInteger(floor(1000 * w)) AS bin
OPTIONAL MATCH (b:ScoreBin {concept_id: concept.concept_id, bin: bin})
WITH concept, w, below[bin - low] AS under, n, b.upto AS upto, size([v IN b.w WHERE v <= w]) AS i
// A concept no object was scored on (n = 0) has no distribution: its P_c(w) is null.
RETURN concept.concept_id AS concept_id, w,
       CASE WHEN n > 0 THEN toFloat(under + CASE WHEN i > 0 THEN upto[i - 1] ELSE 0 END) / n END AS p;
