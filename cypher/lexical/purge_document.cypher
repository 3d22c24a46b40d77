// Delete a document with its sections and chunks in batches of small transactions, for
// versions no reader sees any more (retired or abandoned staged copies of big documents).
// Each statement must run as an auto-commit query (CALL ... IN TRANSACTIONS).
// Browser: :auto MATCH ... (prefix the statement with :auto)

MATCH (c:Chunk {document_id: $document_id})
CALL (c) { DETACH DELETE c } IN TRANSACTIONS OF 5000 ROWS;

MATCH (s:Section {document_id: $document_id})
CALL (s) { DETACH DELETE s } IN TRANSACTIONS OF 5000 ROWS;

MATCH (d:Document {id: $document_id})
DETACH DELETE d;
