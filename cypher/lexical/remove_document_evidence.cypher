// Step 1 of removing a document: the Evidence nodes that cite its chunks (small), and the
// chunk count for the report. purge_document.cypher then deletes the rest in batches.
// Browser: :param document_id => 'hypertension'

MATCH (c:Chunk {document_id: $document_id})
WITH collect(c.id) AS chunk_ids
OPTIONAL MATCH (e:Evidence) WHERE e.chunk_id IN chunk_ids
DETACH DELETE e
RETURN size(chunk_ids) AS chunks;
