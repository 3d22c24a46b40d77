// write: token accounting of one analyze run, kept in the database (estimated_tokens: the
// part of completion_tokens estimated for generations that timed out).

CREATE (:AnalysisRun {id: $run.id, started_at: datetime($run.started_at), finished_at: datetime(),
                      provider: $run.provider, model: $run.model, stages: $run.stages,
                      calls: $run.calls, prompt_tokens: $run.prompt_tokens,
                      completion_tokens: $run.completion_tokens, cache_hits: $run.cache_hits,
                      failures: $run.failures, truncated: $run.truncated, timeouts: $run.timeouts,
                      dropped: $run.dropped, estimated_tokens: $run.estimated_tokens});
