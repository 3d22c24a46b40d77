// auto: drop what chunks that are gone contributed to the triplet graph (a changed or removed
// document deletes its chunks): their ids in relations, relations left with none, entities left
// without a chunk. Batched; in the Browser put :auto in front.

MATCH (:__Entity__)-[r]->(:__Entity__)
WHERE r.chunks IS NOT NULL AND any(id IN r.chunks WHERE NOT EXISTS { MATCH (:Chunk {id: id}) })
CALL (r) {
  WITH r, [id IN r.chunks WHERE EXISTS { MATCH (:Chunk {id: id}) }] AS kept
  FOREACH (_ IN CASE WHEN kept = [] THEN [1] END | DELETE r)
  FOREACH (_ IN CASE WHEN kept <> [] THEN [1] END | SET r.chunks = kept, r.weight = size(kept))
} IN TRANSACTIONS OF 1000 ROWS;

MATCH (e:__Entity__)
WHERE NOT EXISTS { (e)-[:FROM_CHUNK]->(:Chunk) }
CALL (e) { DETACH DELETE e } IN TRANSACTIONS OF 1000 ROWS;
