// read: entities whose chunks' descriptions were too long to join: they get a summary.

MATCH (e:__Entity__ {needs_summary: true})
CALL (e) {
  MATCH (e)-[f:FROM_CHUNK]->(t:Chunk)
  WITH f.description AS description, t ORDER BY t.document_id, t.index
  WITH description WHERE description <> ''
  RETURN collect(DISTINCT description) AS descriptions
}
RETURN e.key AS key, e.name AS name, descriptions
ORDER BY key;
