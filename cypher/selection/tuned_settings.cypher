// read: the selection settings `tripartite tune --store` kept (no row when there are none).

MATCH (s:TunedSelection {id: 'current'})
RETURN s.mode AS mode, s.alpha AS alpha, s.beta AS beta, s.max_tokens AS max_tokens, s.tokens_per_concept AS tokens_per_concept,
       toString(s.stored_at) AS stored_at, s.coverage_floor AS coverage_floor, s.median_coverage AS median_coverage, s.median_reach AS median_reach,
       s.median_density AS median_density, s.median_tokens AS median_tokens, s.objects AS objects;
