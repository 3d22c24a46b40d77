// write: remove documents' sections and chunks, and everything derived from their chunks: the
// selection of the concepts they carry extracts of, and (through DETACH) their MENTIONED_IN extracts.
// Run before changed documents are written again, in the same transaction.
// Browser: :param document_ids => ['hypertension']

// The selection of every concept the old chunks carried an extract of is cleared (the next
// select, a full one since the inputs changed, writes it again): no Evidence cites a chunk
// that is gone.
MATCH (t:Chunk) WHERE t.document_id IN $document_ids
MATCH (t)<-[:MENTIONED_IN]-(k:Concept)
WITH DISTINCT k
MATCH (e:Evidence {concept_id: k.id})
DELETE e;

MATCH (c:Chunk) WHERE c.document_id IN $document_ids
DETACH DELETE c;

MATCH (s:Section) WHERE s.document_id IN $document_ids
DETACH DELETE s;
