// read: the chunks closest to a question (the chunk vector index), traced up to Document >
// Section: local search's fallback when no entity matches the question.
// Browser: :param vector => [...]; :param limit => 8

// The index is approximate: asked for four times as many, the closest ones are rarely missed.
CALL db.index.vector.queryNodes('chunk_embedding', 4 * $limit, $vector) YIELD node AS t, score
WITH t, score ORDER BY score DESC, t.id LIMIT $limit
MATCH (t)-[:FROM_DOCUMENT]->(d:Document)
OPTIONAL MATCH (s:Section {id: t.section_id})
RETURN t.id AS chunk_id, t.text AS text, d.title AS document, s.path AS section_path, t.index AS index, score, t.token_count AS tokens
ORDER BY score DESC, chunk_id;
