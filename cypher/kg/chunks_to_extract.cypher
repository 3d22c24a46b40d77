// read: the chunks to extract (never, or with another prompt version), each with its context:
// its $k most similar other chunks (vector index, score at least $min_score, which is Neo4j's
// (1 + cos) / 2), and what each already contributed to the graph (the names and types of its
// entities) or, for one not extracted yet, its text.
// Browser: :param version => 'triplets-...'; :param k => 5; :param min_score => 0.65

MATCH (t:Chunk)-[:FROM_DOCUMENT]->(d:Document)
WHERE t.kg_version IS NULL OR t.kg_version <> $version
OPTIONAL MATCH (s:Section {id: t.section_id})
CALL (t) {
  WITH t WHERE t.embedding IS NOT NULL AND $k > 0
  CALL db.index.vector.queryNodes('chunk_embedding', $k + 1, t.embedding) YIELD node, score
  WITH node, score WHERE node <> t AND score >= $min_score
  ORDER BY score DESC, node.id
  LIMIT $k
  RETURN collect({chunk_id: node.id, score: score, extracted: node.kg_version = $version,
                  text: CASE WHEN node.kg_version = $version THEN null ELSE node.text END,
                  entities: [(e:__Entity__)-[:FROM_CHUNK]->(node) | [e.name, e.type]]}) AS similar
}
RETURN t.id AS id, t.text AS text, d.title AS document, coalesce(s.title, d.title) AS section,
       t.kg_version AS extracted_with, similar
ORDER BY t.document_id, t.index;
