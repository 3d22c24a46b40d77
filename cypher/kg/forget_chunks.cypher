// write: forget what some chunks contributed (before they are extracted again, with another
// prompt or provider): their FROM_CHUNK edges and their ids in relations; entities they described
// are marked for a new description. Entities left without a chunk go in prune.cypher.
// Browser: :param chunk_ids => ['doc:0a1b2c3d4e5f']

UNWIND $chunk_ids AS id
MATCH (e:__Entity__)-[f:FROM_CHUNK]->(:Chunk {id: id})
SET e.dirty = true, e.lost = true
DELETE f;

MATCH (:__Entity__)-[r]->(:__Entity__)
WHERE r.chunks IS NOT NULL AND any(id IN r.chunks WHERE id IN $chunk_ids)
WITH collect(r) AS relations
UNWIND relations AS r
WITH r, [i IN range(0, size(r.chunks) - 1) WHERE NOT r.chunks[i] IN $chunk_ids] AS kept
SET r.chunk_descriptions = [i IN kept | coalesce(r.chunk_descriptions[i], '')],
    r.chunks = [i IN kept | r.chunks[i]], r.weight = size(kept), r.dirty = true
WITH r WHERE r.chunks = []
DELETE r;

UNWIND $chunk_ids AS id
MATCH (t:Chunk {id: id})
REMOVE t.kg_version, t.kg_entities, t.kg_by, t.kg_fingerprint;
