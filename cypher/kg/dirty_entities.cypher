// read: entities whose descriptions changed, with every chunk's description of them and the name
// the first chunk in reading order gives them.

MATCH (e:__Entity__ {dirty: true})
CALL (e) {
  MATCH (e)-[f:FROM_CHUNK]->(t:Chunk)
  WITH f, t ORDER BY t.document_id, t.index
  RETURN collect(DISTINCT CASE WHEN f.description <> '' THEN f.description END) AS descriptions,
         head(collect(f.name)) AS name
}
RETURN e.key AS key, coalesce(name, e.name) AS name, descriptions
ORDER BY key;
