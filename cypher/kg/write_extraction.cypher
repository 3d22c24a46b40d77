// write: what chunks contributed, in a batch. Entities with the same normalised name and type are
// one node (MERGE on key), labelled __Entity__ and with their type; each keeps, on its FROM_CHUNK
// edge to every chunk it came from, that chunk's name and description of it. A relation between
// two entities is one relationship of its type; it lists the chunks that stated it (weight: how
// many) with each one's description. Both are marked dirty: describe.cypher then gives them their
// name and descriptions from the chunks in reading order, so the graph does not depend on the
// order in which answers arrived. Each chunk records the prompt version, who extracted it
// (provider/model) and, for the offline extractor, a fingerprint of its answer.
// Browser: :param version => 'triplets-...'; :param by => 'extractive/triplets-extractive-v2';
//          :param rows => [{chunk_id: '...', fingerprint: null, entities: [], relations: []}]

UNWIND $rows AS row
MATCH (t:Chunk {id: row.chunk_id})
SET t.kg_version = $version, t.kg_entities = size(row.entities), t.kg_by = $by, t.kg_fingerprint = row.fingerprint
WITH t, row
CALL (t, row) {
  UNWIND row.entities AS x
  MERGE (e:__Entity__ {key: x.key})
  ON CREATE SET e.name = x.name, e.type = x.label
  SET e:$(x.label), e.dirty = true
  MERGE (e)-[f:FROM_CHUNK]->(t)
  SET f.description = x.description, f.name = x.name
}
CALL (t, row) {
  UNWIND row.relations AS x
  MATCH (a:__Entity__ {key: x.source}), (b:__Entity__ {key: x.target})
  MERGE (a)-[r:$(x.type)]->(b)
  WITH r, x, t, coalesce(r.chunks, []) AS chunks
  WITH r, x, t, chunks, [i IN range(0, size(chunks) - 1) WHERE chunks[i] = t.id][0] AS at
  SET r.chunks = CASE WHEN at IS NULL THEN chunks + t.id ELSE chunks END,
      r.chunk_descriptions = CASE WHEN at IS NULL THEN coalesce(r.chunk_descriptions, [c IN chunks | '']) + x.description
                                  ELSE [i IN range(0, size(chunks) - 1) |
                                        CASE WHEN i = at THEN x.description ELSE coalesce(r.chunk_descriptions[i], '') END]
                             END,
      r.weight = size(chunks) + CASE WHEN at IS NULL THEN 1 ELSE 0 END,
      r.dirty = true
};
