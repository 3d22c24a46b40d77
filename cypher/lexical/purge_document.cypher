// auto: step 2 of removing a document: chunks and sections in batches of small transactions
// (a 50 MB document does not fit in one), then the Document node itself.
// Each statement runs as an auto-commit query; in the Browser, prefix it with :auto.
// Browser: :param document_id => 'hypertension'

MATCH (c:Chunk {document_id: $document_id})
CALL (c) { DETACH DELETE c } IN TRANSACTIONS OF 5000 ROWS;

MATCH (s:Section {document_id: $document_id})
CALL (s) { DETACH DELETE s } IN TRANSACTIONS OF 5000 ROWS;

MATCH (d:Document {id: $document_id})
DETACH DELETE d;
