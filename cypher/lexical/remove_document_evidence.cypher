// write: step 1 of removing a document: the Evidence nodes that cite its chunks (small), and the
// chunk count for the report. purge_document.cypher then deletes the rest in batches.
// Browser: :param document_id => 'hypertension'

// Evidence exists for (object, chunk) pairs linked through a concept; it is found by its key.
MATCH (t:Chunk {document_id: $document_id})
WITH collect(t) AS chunks
CALL (chunks) {
  UNWIND chunks AS t
  MATCH (t)<-[:MENTIONED_IN]-(:Concept)<-[:CONCERNS]-(o:Object)
  WITH DISTINCT o.id AS object_id, t.id AS chunk_id
  MATCH (e:Evidence) WHERE e.object_id = object_id AND e.chunk_id = chunk_id AND e.concept_id IS NOT NULL
  DETACH DELETE e
}
RETURN size(chunks) AS chunks;
