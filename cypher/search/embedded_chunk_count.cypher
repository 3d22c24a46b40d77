// read: how many chunks carry an embedding from the given model (all of them rank in a full RAG ranking).
// Browser: :param model => 'all-MiniLM-L6-v2'

MATCH (c:Chunk)
WHERE c.embedding IS NOT NULL AND c.embedding_model = $model
RETURN count(c) AS chunks;
