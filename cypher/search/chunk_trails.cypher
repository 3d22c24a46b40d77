// read: chunks traced up to Document > Section, for references.
// Browser: :param chunk_ids => ['graphrag-test:e84489d5dc99']

UNWIND range(0, size($chunk_ids) - 1) AS i
MATCH (t:Chunk {id: $chunk_ids[i]})-[:FROM_DOCUMENT]->(d:Document)
OPTIONAL MATCH (s:Section {id: t.section_id})
RETURN t.id AS chunk_id, d.title AS document, s.path AS section_path, t.index AS index
ORDER BY i;
