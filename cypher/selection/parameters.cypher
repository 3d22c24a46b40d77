// read: the alpha and beta the stored classification was made with.

MATCH (s:ScoreDistribution) WHERE s.alpha IS NOT NULL
RETURN s.alpha AS alpha, s.beta AS beta
LIMIT 1;
