// Evidence nodes written before V005 carried an id, their percentile and the run's alpha and
// beta; those now live on (:ScoreDistribution). Not-selected Evidence has no `selected`.
// The next `tripartite select` rebuilds the distributions.

MATCH (e:Evidence)
REMOVE e.id, e.p, e.run, e.alpha, e.beta
SET e.selected = CASE WHEN e.selected THEN true END;
