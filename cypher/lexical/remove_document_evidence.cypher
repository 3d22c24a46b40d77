// write: step 1 of removing a document: the selection of every concept its chunks carry an
// extract of is cleared (the next select, a full one since the inputs changed, writes it again,
// and prompts wait for it), so no Evidence cites a chunk that is gone; and the chunk count for
// the report. purge_document.cypher then deletes the rest in batches.
// Browser: :param document_id => 'hypertension'

MATCH (t:Chunk {document_id: $document_id})
WITH collect(t) AS chunks
CALL (chunks) {
  UNWIND chunks AS t
  MATCH (t)<-[:MENTIONED_IN]-(k:Concept)
  WITH DISTINCT k
  MATCH (e:Evidence {concept_id: k.id})
  DELETE e
}
RETURN size(chunks) AS chunks;
