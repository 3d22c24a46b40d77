// Relations between triplet-graph entities never take a relationship type of another part of
// the graph, as their labels never take another part's label (V010): a model's "concerns",
// "mentioned in" or "parent" between two entities was written as CONCERNS, MENTIONED_IN or
// PARENT, and passed for the pre-analysis' edges or the community hierarchy. Such a relation
// becomes "<type>_RELATION", as new extractions write it (tripartite/kg/schema.py,
// RESERVED_RELATION_TYPES), with all its properties. Where the two entities already have a
// relation of that new type, the old one goes and the chunks that stated it are extracted again
// by the next `tripartite kg extract` (cached answers: no call is paid twice).

UNWIND ['FROM_DOCUMENT', 'NEXT_CHUNK', 'HAS_SECTION', 'HAS_SUBSECTION', 'NEXT_SECTION', 'HAS_CHUNK',
        'IN_ONTOLOGY', 'IN_CLASS', 'BROADER', 'MENTIONED_IN', 'CONCERNS',
        'FROM_CHUNK', 'IS_CONCEPT', 'IN_COMMUNITY', 'PARENT', 'HAS_SENTENCE'] AS reserved
MATCH (a:__Entity__)-[r]->(b:__Entity__) WHERE type(r) = reserved
WITH a, r, b, reserved + '_RELATION' AS renamed
OPTIONAL MATCH (a)-[taken]->(b) WHERE type(taken) = renamed
CALL (a, r, b, renamed, taken) {
  WITH a, r, b, renamed WHERE taken IS NULL
  CREATE (a)-[moved:$(renamed)]->(b)
  SET moved = properties(r)
}
CALL (r, taken) {
  WITH r WHERE taken IS NOT NULL
  UNWIND coalesce(r.chunks, []) AS id
  MATCH (t:Chunk {id: id})
  REMOVE t.kg_version
}
DELETE r;
