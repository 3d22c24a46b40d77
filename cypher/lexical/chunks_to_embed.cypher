// read: chunks without an embedding from the current model, or without the embedding of their
// headings and text (context_embedding, which hybrid search ranks by), in a stable order. Each
// comes with its document's title and its section's path, for its heading trail.
// Browser: :param model => 'all-MiniLM-L6-v2'; :param limit => 10

MATCH (c:Chunk)
WHERE c.embedding IS NULL OR c.embedding_model IS NULL OR c.embedding_model <> $model
   OR c.context_embedding IS NULL
OPTIONAL MATCH (c)-[:FROM_DOCUMENT]->(d:Document)
OPTIONAL MATCH (s:Section {id: c.section_id})
RETURN c.id AS id, c.text AS text, d.title AS document, s.path AS section_path
ORDER BY c.document_id, c.index
LIMIT $limit;
