// write: chunk nodes in a batch: text and index as neo4j-graphrag expects them, plus the section
// they belong to and their size in the embedding model's tokens.

UNWIND $chunks AS row
MERGE (c:Chunk {id: row.id})
SET c.document_id = row.document_id,
    c.section_id = row.section_id,
    c.index = row.index,
    c.text = row.text,
    c.token_count = row.token_count;
