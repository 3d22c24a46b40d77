// read: local search (DB-GPT's): the entities the question's keywords name (full-text index
// entity_names), the relations around them up to $depth hops (at most 3, and $relation_limit),
// the chunks they came from, ranked by closeness to the question and the found entities they mention,
// traced up to
// Document > Section, and the communities of the found entities with their reports.
// Browser: :param question_keywords => ['AWEL', 'workflow']; :param depth => 2; :param entity_limit => 10;
//          :param relation_limit => 40; :param chunk_limit => 12; :param vector => [...];
//          :param mention_weight => 0.2

// Each keyword as a phrase, a match on the name counting four times one in the description.
WITH [k IN $question_keywords WHERE trim(k) <> '' | '"' + replace(replace(trim(k), '\\', ' '), '"', ' ') + '"'] AS terms
CALL (terms) {
  WITH terms WHERE size(terms) > 0
  CALL db.index.fulltext.queryNodes('entity_names',
    reduce(q = '', t IN terms | q + CASE WHEN q = '' THEN '' ELSE ' OR ' END + 'name:' + t + '^4 OR description:' + t))
  YIELD node, score
  RETURN node AS entity, score
  ORDER BY score DESC, node.key
  LIMIT $entity_limit
}
WITH collect({entity: entity, score: score}) AS found
WITH found, [x IN found | x.entity] AS seeds
CALL (seeds) {
  UNWIND seeds AS seed
  CALL (seed) {
    MATCH (seed)-[r]-(other:__Entity__) WHERE r.chunks IS NOT NULL AND $depth >= 1
    RETURN r, 1 AS hops
    UNION
    MATCH (seed)-[]-(:__Entity__)-[r]-(other:__Entity__) WHERE r.chunks IS NOT NULL AND $depth >= 2 AND other <> seed
    RETURN r, 2 AS hops
    UNION
    MATCH (seed)-[]-(:__Entity__)-[]-(:__Entity__)-[r]-(other:__Entity__)
    WHERE r.chunks IS NOT NULL AND $depth >= 3 AND other <> seed
    RETURN r, 3 AS hops
  }
  WITH r, min(hops) AS hops
  ORDER BY hops, r.weight DESC, elementId(r)
  LIMIT $relation_limit
  RETURN collect({source: startNode(r).name, target: endNode(r).name, type: type(r), description: r.description,
                  weight: r.weight, hops: hops, chunks: r.chunks}) AS relations
}
CALL (seeds) {
  // The cosine times the question vector's length is its dot product with the chunk's unit vector:
  // a question read by two models is their readings summed, each in its model's block, and a
  // chunk then meets its own model's reading at that reading's full cosine (1 for a unit vector).
  WITH seeds, sqrt(reduce(n = 0.0, x IN $vector | n + x * x)) AS length
  UNWIND seeds AS e
  MATCH (e)-[:FROM_CHUNK]->(t:Chunk)
  WITH t, length, count(DISTINCT e) AS mentions
  // Ranked by closeness to what is searched for, plus a share of the found entities mentioned:
  // an entity's name often stands in a chunk that says nothing the question asks.
  // (A chunk of another model's vectors, before `tripartite embed`, or none: its cosine counts 0.)
  WITH t, mentions, CASE WHEN size(t.embedding) = size($vector)
                         THEN (2 * vector.similarity.cosine(t.embedding, $vector) - 1) * length ELSE 0.0 END
                    + $mention_weight * toFloat(mentions) / size(seeds) AS rank
  ORDER BY rank DESC, t.document_id, t.index
  LIMIT $chunk_limit
  MATCH (t)-[:FROM_DOCUMENT]->(d:Document)
  OPTIONAL MATCH (s:Section {id: t.section_id})
  RETURN collect({chunk_id: t.id, text: t.text, document: d.title, section_path: s.path, index: t.index, mentions: mentions,
                  tokens: t.token_count}) AS chunks
}
CALL (seeds) {
  UNWIND seeds AS e
  MATCH (e)-[:IN_COMMUNITY]->(:Community)-[:PARENT*0..]->(c:Community)
  WHERE c.summary IS NOT NULL
  WITH c, count(DISTINCT e) AS members
  ORDER BY members DESC, c.level, c.id
  LIMIT 3
  RETURN collect({id: c.id, level: c.level, title: c.title, summary: c.summary}) AS communities
}
RETURN [x IN found | {name: x.entity.name, type: x.entity.type, description: x.entity.description,
                      score: x.score}] AS entities, relations, chunks, communities;
