// read: how many chunks lack an embedding from the given model, or the embedding of their headings and text.
// Browser: :param model => 'all-MiniLM-L6-v2'

MATCH (c:Chunk)
WHERE c.embedding IS NULL OR c.embedding_model IS NULL OR c.embedding_model <> $model
   OR c.context_embedding IS NULL
RETURN count(c) AS chunks;
