// read: the chunks closest to a question (the chunk vector index), traced up to Document >
// Section: local search's fallback when no entity matches the question.
// Browser: :param vector => [...]; :param limit => 8

CALL db.index.vector.queryNodes('chunk_embedding', $limit, $vector) YIELD node AS t, score
MATCH (t)-[:FROM_DOCUMENT]->(d:Document)
OPTIONAL MATCH (s:Section {id: t.section_id})
RETURN t.id AS chunk_id, t.text AS text, d.title AS document, s.path AS section_path, score, t.token_count AS tokens
ORDER BY score DESC, chunk_id;
