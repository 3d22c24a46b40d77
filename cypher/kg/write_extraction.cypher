// write: what chunks contributed, in a batch. Entities with the same normalised name and type are
// one node (MERGE on key), labelled __Entity__ and with their type; each keeps, on its FROM_CHUNK
// edge to every chunk it came from, that chunk's description of it. A relation between two
// entities is one relationship of its type; it lists the chunks that stated it (weight: how many)
// and up to five of their descriptions.
// Browser: :param version => 'triplets-...'; :param rows => [{chunk_id: '...', entities: [], relations: []}]

UNWIND $rows AS row
MATCH (t:Chunk {id: row.chunk_id})
SET t.kg_version = $version, t.kg_entities = size(row.entities)
WITH t, row
CALL (t, row) {
  UNWIND row.entities AS x
  MERGE (e:__Entity__ {key: x.key})
  ON CREATE SET e.name = x.name, e.type = x.label
  SET e:$(x.label), e.dirty = true
  MERGE (e)-[f:FROM_CHUNK]->(t)
  SET f.description = x.description
}
CALL (t, row) {
  UNWIND row.relations AS x
  MATCH (a:__Entity__ {key: x.source}), (b:__Entity__ {key: x.target})
  MERGE (a)-[r:$(x.type)]->(b)
  WITH r, x, t, coalesce(r.chunks, []) AS chunks, coalesce(r.descriptions, []) AS descriptions
  SET r.chunks = CASE WHEN t.id IN chunks THEN chunks ELSE chunks + t.id END,
      r.weight = size(CASE WHEN t.id IN chunks THEN chunks ELSE chunks + t.id END),
      r.descriptions = CASE WHEN x.description = '' OR x.description IN descriptions OR size(descriptions) >= 5
                            THEN descriptions ELSE descriptions + x.description END,
      r.description = coalesce(r.description, x.description)
};
