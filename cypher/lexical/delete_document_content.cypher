// Remove documents' sections and chunks, and everything derived from their chunks: the
// Evidence nodes that cite them and (through DETACH) their MENTIONED_IN extracts.
// Run before changed documents are written again, in the same transaction.
// Browser: :param document_ids => ['hypertension']

MATCH (c:Chunk) WHERE c.document_id IN $document_ids
WITH collect(c.id) AS chunk_ids
MATCH (e:Evidence) WHERE e.chunk_id IN chunk_ids
DETACH DELETE e;

MATCH (c:Chunk) WHERE c.document_id IN $document_ids
DETACH DELETE c;

MATCH (s:Section) WHERE s.document_id IN $document_ids
DETACH DELETE s;
