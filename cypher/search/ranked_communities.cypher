// read: global search's communities: the reports of one level ranked by the similarity of their
// embedding to the question's (exact, over that level), with the chunks most of their members came
// from, traced up to Document > Section.
// Browser: :param level => 1; :param vector => [...]; :param limit => 8; :param chunks_per_community => 3

MATCH (c:Community {level: $level}) WHERE c.summary IS NOT NULL AND c.embedding IS NOT NULL
WITH c, vector.similarity.cosine(c.embedding, $vector) AS score
ORDER BY score DESC, c.id
LIMIT $limit
CALL (c) {
  MATCH (e:__Entity__)-[:IN_COMMUNITY]->(:Community)-[:PARENT*0..]->(c)
  MATCH (e)-[:FROM_CHUNK]->(t:Chunk)
  WITH t, count(DISTINCT e) AS members
  ORDER BY members DESC, t.document_id, t.index
  LIMIT $chunks_per_community
  MATCH (t)-[:FROM_DOCUMENT]->(d:Document)
  OPTIONAL MATCH (s:Section {id: t.section_id})
  RETURN collect({chunk_id: t.id, document: d.title, section_path: s.path}) AS chunks
}
RETURN c.id AS id, c.level AS level, c.title AS title, c.summary AS summary, c.report AS report, c.rating AS rating,
       score, chunks
ORDER BY score DESC, id;
