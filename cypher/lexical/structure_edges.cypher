// write: the structure edges of some documents, from the order and parent properties the loader
// wrote. Idempotent: run it again and nothing changes.
// Browser: :param document_ids => ['hypertension']

// Chunk -> Document (neo4j-graphrag's FROM_DOCUMENT).
MATCH (c:Chunk) WHERE c.document_id IN $document_ids
MATCH (d:Document {id: c.document_id})
MERGE (c)-[:FROM_DOCUMENT]->(d);

// Reading order across each whole document (neo4j-graphrag's NEXT_CHUNK).
MATCH (c:Chunk) WHERE c.document_id IN $document_ids
WITH c.document_id AS document, c ORDER BY c.index
WITH document, collect(c) AS chunks
UNWIND range(0, size(chunks) - 2) AS i
WITH chunks[i] AS this, chunks[i + 1] AS next
MERGE (this)-[:NEXT_CHUNK]->(next);

// Include edges: a document includes its top sections, a section its subsections.
MATCH (s:Section) WHERE s.document_id IN $document_ids AND s.parent_id IS NULL
MATCH (d:Document {id: s.document_id})
MERGE (d)-[:HAS_SECTION]->(s);

MATCH (s:Section) WHERE s.document_id IN $document_ids AND s.parent_id IS NOT NULL
MATCH (parent:Section {id: s.parent_id})
MERGE (parent)-[:HAS_SUBSECTION]->(s);

// Next edges between siblings, in reading order.
MATCH (s:Section) WHERE s.document_id IN $document_ids
WITH s.document_id AS document, coalesce(s.parent_id, '') AS parent, s ORDER BY s.order
WITH document, parent, collect(s) AS siblings
UNWIND range(0, size(siblings) - 2) AS i
WITH siblings[i] AS this, siblings[i + 1] AS next
MERGE (this)-[:NEXT_SECTION]->(next);

// A section holds the chunks of its own text.
MATCH (c:Chunk) WHERE c.document_id IN $document_ids
MATCH (s:Section {id: c.section_id})
MERGE (s)-[:HAS_CHUNK]->(c);
