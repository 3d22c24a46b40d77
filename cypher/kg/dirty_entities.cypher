// read: entities whose descriptions changed, with every chunk's description of them.

MATCH (e:__Entity__ {dirty: true})
CALL (e) {
  MATCH (e)-[f:FROM_CHUNK]->(t:Chunk)
  WITH f.description AS description, t ORDER BY t.document_id, t.index
  WITH description WHERE description <> ''
  RETURN collect(DISTINCT description) AS descriptions
}
RETURN e.key AS key, e.name AS name, descriptions
ORDER BY key;
