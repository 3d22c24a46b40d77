// The selection store's bins (ScoreBin, since V012) joined the labels no triplet entity may carry
// after V010 had repaired the others: an entity typed "score bin" by an extraction made before
// then gets "ScoreBinEntity" instead, as V010 did for the rest (tripartite/kg/schema.py,
// RESERVED_LABELS). Where that key is taken already, the entity goes and its chunks are extracted
// again by the next `tripartite kg extract`.

MATCH (e:__Entity__:ScoreBin)
WITH e, split(e.key, '|')[0] + '|ScoreBinEntity' AS key
OPTIONAL MATCH (taken:__Entity__ {key: key}) WHERE taken <> e
CALL (e, key, taken) {
  WITH e, key WHERE taken IS NULL
  REMOVE e:ScoreBin
  SET e:ScoreBinEntity, e.key = key
}
CALL (e, taken) {
  WITH e WHERE taken IS NOT NULL
  OPTIONAL MATCH (e)-[:FROM_CHUNK]->(t:Chunk)
  REMOVE t.kg_version
  WITH DISTINCT e
  DETACH DELETE e
};
