// read: community reports whose vector (and whose sentences' vectors) another embedding model
// made: `tripartite embed` re-embeds them after a model change.
// Browser: :param model => 'all-MiniLM-L6-v2+bge-small-zh-v1.5'; :param limit => 64

MATCH (c:Community)
WHERE c.report IS NOT NULL AND (c.embedding IS NULL OR c.embedding_model IS NULL OR c.embedding_model <> $model)
RETURN c.id AS id, c.report AS text, c.summary AS summary, c.findings AS findings
ORDER BY c.id
LIMIT $limit;
