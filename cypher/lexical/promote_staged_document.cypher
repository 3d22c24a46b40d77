// The atomic switch for a document too large for one transaction. Its new version was
// written beforehand, in several transactions, under ids starting with $staged_prefix;
// here, in one light transaction, the old version is renamed out of the way (ids starting
// with $retired_prefix, purged afterwards) and the new one takes the real ids.
// Only property updates happen here, so the transaction stays small.

// Evidence citing the old version's chunks is derived data: it goes now.
MATCH (c:Chunk {document_id: $document_id})
WITH collect(c.id) AS chunk_ids
MATCH (e:Evidence) WHERE e.chunk_id IN chunk_ids
DETACH DELETE e;

// Retire the old version.
MATCH (c:Chunk {document_id: $document_id})
SET c.id = $retired_prefix + c.id, c.document_id = $retired_prefix + $document_id;

MATCH (s:Section {document_id: $document_id})
SET s.id = $retired_prefix + s.id, s.document_id = $retired_prefix + $document_id;

MATCH (d:Document {id: $document_id})
SET d.id = $retired_prefix + $document_id;

// Promote the new version.
MATCH (s:Section {document_id: $staged_prefix + $document_id})
SET s.id = substring(s.id, size($staged_prefix)),
    s.document_id = $document_id,
    s.parent_id = CASE WHEN s.parent_id IS NULL THEN NULL ELSE substring(s.parent_id, size($staged_prefix)) END;

MATCH (c:Chunk {document_id: $staged_prefix + $document_id})
SET c.id = substring(c.id, size($staged_prefix)),
    c.document_id = $document_id,
    c.section_id = substring(c.section_id, size($staged_prefix));

MATCH (d:Document {id: $staged_prefix + $document_id})
SET d.id = $document_id;
