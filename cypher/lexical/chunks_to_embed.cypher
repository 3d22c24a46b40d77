// read: chunks without an embedding from the current model, or without the embedding of their
// headings and text (context_embedding, which hybrid search ranks by), in a stable order. Each
// comes with its headings, the document's title first: "Title > Section > Subsection".
// Browser: :param model => 'all-MiniLM-L6-v2'; :param limit => 10

MATCH (c:Chunk)
WHERE c.embedding IS NULL OR c.embedding_model IS NULL OR c.embedding_model <> $model
   OR c.context_embedding IS NULL
OPTIONAL MATCH (c)-[:FROM_DOCUMENT]->(d:Document)
OPTIONAL MATCH (s:Section {id: c.section_id})
WITH c, coalesce(s.path, []) AS path, d.title AS title
WITH c, CASE WHEN title IS NULL OR trim(title) = '' OR (size(path) > 0 AND path[0] = title) THEN path
             ELSE [title] + path END AS headings
RETURN c.id AS id, c.text AS text, reduce(h = '', part IN headings | h + CASE WHEN h = '' THEN '' ELSE ' > ' END + part) AS headings
ORDER BY c.document_id, c.index
LIMIT $limit;
