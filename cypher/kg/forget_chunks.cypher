// write: forget what some chunks contributed (before they are extracted again, with another
// prompt): their FROM_CHUNK edges and their ids in relations; entities they described are marked
// for a new description. Entities left without a chunk go in prune.cypher.
// Browser: :param chunk_ids => ['doc:0a1b2c3d4e5f']

UNWIND $chunk_ids AS id
MATCH (e:__Entity__)-[f:FROM_CHUNK]->(:Chunk {id: id})
SET e.dirty = true
DELETE f;

MATCH (:__Entity__)-[r]->(:__Entity__)
WHERE r.chunks IS NOT NULL AND any(id IN r.chunks WHERE id IN $chunk_ids)
WITH r, [id IN r.chunks WHERE NOT id IN $chunk_ids] AS kept
FOREACH (_ IN CASE WHEN kept = [] THEN [1] END | DELETE r)
FOREACH (_ IN CASE WHEN kept <> [] THEN [1] END | SET r.chunks = kept, r.weight = size(kept));

UNWIND $chunk_ids AS id
MATCH (t:Chunk {id: id})
REMOVE t.kg_version, t.kg_entities;
