// read: extracts (chunk extracts on MENTIONED_IN, object extracts on CONCERNS) whose vector another
// embedding model made, or none: `tripartite embed` re-embeds them in batches after a model change.
// Browser: :param model => 'all-MiniLM-L6-v2+bge-small-zh-v1.5'; :param limit => 256

CALL () {
  MATCH (:Concept)-[m:MENTIONED_IN]->(:Chunk)
  WHERE m.summary IS NOT NULL AND (m.embedding IS NULL OR m.embedding_model IS NULL OR m.embedding_model <> $model)
  RETURN elementId(m) AS id, m.summary AS text
  UNION ALL
  MATCH (:Object)-[r:CONCERNS]->(:Concept)
  WHERE r.summary IS NOT NULL AND (r.embedding IS NULL OR r.embedding_model IS NULL OR r.embedding_model <> $model)
  RETURN elementId(r) AS id, r.summary AS text
}
RETURN id, text
LIMIT $limit;
