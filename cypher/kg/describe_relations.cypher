// write: relations whose chunks changed get their chunks in reading order, their description
// from the first chunk that gave one, and up to five distinct descriptions: the same whatever
// order the chunks were extracted in.

MATCH (:__Entity__)-[r]->(:__Entity__) WHERE r.dirty
CALL (r) {
  UNWIND range(0, size(r.chunks) - 1) AS i
  OPTIONAL MATCH (t:Chunk {id: r.chunks[i]})
  WITH r.chunks[i] AS id, coalesce(r.chunk_descriptions[i], '') AS description, t
  ORDER BY t.document_id, t.index, id
  RETURN collect(id) AS chunks, collect(description) AS descriptions
}
WITH r, chunks, descriptions, [d IN descriptions WHERE d <> ''] AS given
SET r.chunks = chunks, r.chunk_descriptions = descriptions, r.weight = size(chunks),
    r.description = coalesce(head(given), r.description, ''),
    r.descriptions = reduce(kept = [], d IN given | CASE WHEN d IN kept OR size(kept) >= 5 THEN kept ELSE kept + d END)
REMOVE r.dirty;
