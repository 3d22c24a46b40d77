// write: remove documents' sections and chunks, and everything derived from their chunks: the
// Evidence nodes that cite them and (through DETACH) their MENTIONED_IN extracts.
// Run before changed documents are written again, in the same transaction.
// Browser: :param document_ids => ['hypertension']

// Evidence exists for (object, chunk) pairs linked through a concept; it is found by its key.
MATCH (t:Chunk) WHERE t.document_id IN $document_ids
MATCH (t)<-[:MENTIONED_IN]-(:Concept)<-[:CONCERNS]-(o:Object)
WITH DISTINCT o.id AS object_id, t.id AS chunk_id
MATCH (e:Evidence) WHERE e.object_id = object_id AND e.chunk_id = chunk_id AND e.concept_id IS NOT NULL
DETACH DELETE e;

MATCH (c:Chunk) WHERE c.document_id IN $document_ids
DETACH DELETE c;

MATCH (s:Section) WHERE s.document_id IN $document_ids
DETACH DELETE s;
