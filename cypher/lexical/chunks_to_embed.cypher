// read: chunks without an embedding from the current model, in a stable order.

MATCH (c:Chunk)
WHERE c.embedding IS NULL OR c.embedding_model IS NULL OR c.embedding_model <> $model
RETURN c.id AS id, c.text AS text
ORDER BY c.document_id, c.index
LIMIT $limit;
