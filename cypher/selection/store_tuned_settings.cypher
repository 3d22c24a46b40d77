// write: keep the selection settings `tripartite tune` chose, with the figures that chose them
// (median_reach: the coverage of what RAG top-40 reaches, which the floor is held to);
// select and prompt use them from now on.
// Browser: :param settings => {mode: 'floor', alpha: 0.9, beta: 0.5, max_tokens: null, tokens_per_concept: 120}; :param chosen_by => {}

MERGE (s:TunedSelection {id: 'current'})
SET s.mode = $settings.mode, s.alpha = $settings.alpha, s.beta = $settings.beta, s.max_tokens = $settings.max_tokens,
    s.tokens_per_concept = $settings.tokens_per_concept,
    s.stored_at = datetime(), s.coverage_floor = $chosen_by.coverage_floor,
    s.median_coverage = $chosen_by.median_coverage, s.median_reach = $chosen_by.median_reach,
    s.median_density = $chosen_by.median_density,
    s.median_tokens = $chosen_by.median_tokens, s.objects = $chosen_by.objects;
