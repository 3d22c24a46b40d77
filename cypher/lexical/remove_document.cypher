// Remove a document and everything that hangs off it (sections, chunks, their extracts and
// the Evidence citing them). Returns how many chunks went.
// Browser: :param document_id => 'hypertension'

MATCH (e:Evidence)
WHERE e.chunk_id IN COLLECT { MATCH (c:Chunk {document_id: $document_id}) RETURN c.id }
DETACH DELETE e;

MATCH (s:Section {document_id: $document_id})
DETACH DELETE s;

MATCH (d:Document {id: $document_id})
OPTIONAL MATCH (c:Chunk {document_id: $document_id})
WITH d, collect(c) AS chunks
FOREACH (c IN chunks | DETACH DELETE c)
DETACH DELETE d
RETURN size(chunks) AS chunks;
