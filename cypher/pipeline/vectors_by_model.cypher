// read: which embedding model made the graph's vectors, by kind: chunks (text and headings),
// the pre-analysis' extracts (MENTIONED_IN, CONCERNS) and community reports. `doctor` shows it;
// `tripartite embed` re-embeds what another model (or none) made. A model of null: not embedded.

CALL () {
  MATCH (t:Chunk)
  RETURN 'chunks' AS kind, CASE WHEN t.embedding IS NULL OR t.context_embedding IS NULL THEN null
                                ELSE t.embedding_model END AS model, count(*) AS items
  UNION ALL
  MATCH (:Concept)-[m:MENTIONED_IN]->(:Chunk) WHERE m.summary IS NOT NULL
  RETURN 'extracts' AS kind, CASE WHEN m.embedding IS NULL THEN null ELSE m.embedding_model END AS model, count(*) AS items
  UNION ALL
  MATCH (:Object)-[r:CONCERNS]->(:Concept) WHERE r.summary IS NOT NULL
  RETURN 'extracts' AS kind, CASE WHEN r.embedding IS NULL THEN null ELSE r.embedding_model END AS model, count(*) AS items
  UNION ALL
  MATCH (c:Community) WHERE c.report IS NOT NULL
  RETURN 'communities' AS kind, CASE WHEN c.embedding IS NULL THEN null ELSE c.embedding_model END AS model,
         count(*) AS items
}
RETURN kind, model, sum(items) AS items
ORDER BY kind, model;
