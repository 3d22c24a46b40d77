// read: the chunks to extract: never extracted, extracted with another prompt version, named in
// $redo (re-extracted: the offline extractor's answer changed with the corpus), or, with $redo_by,
// extracted by another provider/model than $redo_by (only $only_provider's, when given). Each
// comes with its context: its $k most similar other chunks (score at least $min_score, which is
// Neo4j's (1 + cos) / 2) and their texts. The context depends on the corpus alone, not on what was
// extracted before, so an interrupted run, resumed, sends the prompts an uninterrupted one sends.
// The approximate index only proposes: it is asked for four times as many, and the exact cosine of
// the stored vectors ranks them, so two builds of the index cannot disagree at the k-th neighbour.
// Browser: :param version => 'triplets-...'; :param k => 5; :param min_score => 0.65; :param redo => [];
//          :param redo_by => null; :param only_provider => null

MATCH (t:Chunk)-[:FROM_DOCUMENT]->(d:Document)
WHERE t.kg_version IS NULL OR t.kg_version <> $version OR t.id IN $redo
   OR ($redo_by IS NOT NULL AND coalesce(t.kg_by, '') <> $redo_by
       AND ($only_provider IS NULL OR split(coalesce(t.kg_by, ''), '/')[0] = $only_provider))
OPTIONAL MATCH (s:Section {id: t.section_id})
CALL (t) {
  WITH t WHERE t.embedding IS NOT NULL AND $k > 0
  CALL db.index.vector.queryNodes('chunk_embedding', 4 * ($k + 1), t.embedding) YIELD node
  WITH node, vector.similarity.cosine(node.embedding, t.embedding) AS score
  WHERE node <> t AND score >= $min_score
  ORDER BY score DESC, node.id
  LIMIT $k
  RETURN collect({chunk_id: node.id, score: score, text: node.text}) AS similar
}
RETURN t.id AS id, t.text AS text, d.title AS document, coalesce(s.title, d.title) AS section,
       t.kg_version AS extracted_with, similar
ORDER BY t.document_id, t.index;
