// read: global search's communities: the reports of one level ranked by the similarity of their
// embedding to the question's (exact, over that level), each with its sentences ranked the same
// way (their embeddings are stored, so nothing is embedded again) and the chunks each sentence
// came from; reports without stored sentences (written by an older version) bring their findings,
// whose sentences global_search.py embeds, and the chunks most of their members came from.
// Browser: :param level => 1; :param vector => [...]; :param limit => 8; :param chunks_per_community => 3

// A sentence's cosine times the question vector's length: its dot product with the sentence's unit
// vector, so a question read by two models (their readings summed, each in its model's block)
// meets each sentence at its own model's full cosine (a unit vector's length is 1).
WITH sqrt(reduce(n = 0.0, x IN $vector | n + x * x)) AS length
MATCH (c:Community {level: $level}) WHERE c.summary IS NOT NULL AND c.embedding IS NOT NULL
WITH c, length, vector.similarity.cosine(c.embedding, $vector) AS score
ORDER BY score DESC, c.id
LIMIT $limit
CALL (c, length) {
  OPTIONAL MATCH (c)-[:HAS_SENTENCE]->(s:ReportSentence)
  WITH s, (2 * vector.similarity.cosine(s.embedding, $vector) - 1) * length AS cosine
  ORDER BY cosine DESC, s.n
  RETURN [x IN collect({n: s.n, text: s.text, cosine: cosine, chunks: s.chunks}) WHERE x.text IS NOT NULL] AS sentences
}
CALL (c) {
  MATCH (e:__Entity__)-[:IN_COMMUNITY]->(:Community)-[:PARENT*0..]->(c)
  MATCH (e)-[:FROM_CHUNK]->(t:Chunk)
  WITH t, count(DISTINCT e) AS members
  ORDER BY members DESC, t.document_id, t.index
  LIMIT $chunks_per_community
  RETURN collect(t.id) AS chunks
}
RETURN c.id AS id, c.level AS level, c.title AS title, c.summary AS summary, c.report AS report, c.rating AS rating,
       c.findings AS findings, score, sentences, chunks
ORDER BY score DESC, id;
