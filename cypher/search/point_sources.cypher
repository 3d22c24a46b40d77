// read: the chunks a map step's point came from: the sentences of the reports it names that are
// most similar to it (at most $per_point), and the chunks those sentences came from.
// Browser: :param points => [{n: 0, vector: [...], communities: ['L0-...']}]; :param per_point => 2

UNWIND $points AS p
CALL (p) {
  MATCH (c:Community)-[:HAS_SENTENCE]->(s:ReportSentence)
  WHERE c.id IN p.communities
  WITH s ORDER BY vector.similarity.cosine(s.embedding, p.vector) DESC, s.community_id, s.n
  LIMIT $per_point
  UNWIND s.chunks AS chunk_id
  RETURN collect(DISTINCT chunk_id) AS chunks
}
RETURN p.n AS n, chunks
ORDER BY n;
