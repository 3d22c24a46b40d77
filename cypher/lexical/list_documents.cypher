// read: every document with its size in the graph.

MATCH (d:Document)
RETURN d.id AS id, d.title AS title, d.format AS format, d.path AS path,
       d.section_count AS sections, d.chunk_count AS chunks,
       COUNT { MATCH (c:Chunk {document_id: d.id}) WHERE c.embedding IS NOT NULL } AS embedded,
       toString(d.ingested_at) AS ingested_at
ORDER BY d.id;
