// read: hybrid search's candidates (search/hybrid.py ranks and packs them): the chunks closest
// to the question (the chunk vector index), the chunks that say its keywords best (full-text
// index chunk_text), the entities the keywords name (full-text index entity_names) with the
// chunks they came from and the relations between them, and the community summaries closest to
// the question or holding those entities. Every chunk carries its cosine to the question, so
// all are on one scale whichever way they came (the cosine of its text and that of its headings
// and text, weighted by $context_weight), its full-text score over the best one's, and
// its embedding, by which hybrid.py holds back a chunk that repeats one already taken.
// Browser: :param vector => [...]; :param cross_vector => null; :param cross_weight => 1.0;
//          :param question_keywords => ['AWEL']; :param chunk_limit => 20;
//          :param context_weight => 0.5;
//          :param text_limit => 12; :param entity_limit => 12; :param community_limit => 4

// The entities the keywords name, each keyword a phrase, a match on the name counting four times.
WITH [k IN $question_keywords WHERE trim(k) <> '' | '"' + replace(replace(trim(k), '\\', ' '), '"', ' ') + '"'] AS terms
CALL (terms) {
  WITH terms WHERE size(terms) > 0
  CALL db.index.fulltext.queryNodes('entity_names',
    reduce(q = '', t IN terms | q + CASE WHEN q = '' THEN '' ELSE ' OR ' END + 'name:' + t + '^4 OR description:' + t))
  YIELD node, score
  WITH node ORDER BY score DESC, node.key LIMIT $entity_limit
  RETURN collect(node) AS seeds
}
// Relations between the entities found, or from one of them, with the sentences behind them.
CALL (seeds) {
  UNWIND seeds AS seed
  MATCH (seed)-[r]-(other:__Entity__) WHERE r.chunks IS NOT NULL
  WITH DISTINCT r, other IN seeds AS inside
  ORDER BY inside DESC, r.weight DESC, elementId(r)
  LIMIT 3 * $entity_limit
  RETURN collect({source: startNode(r).name, target: endNode(r).name, type: type(r), description: r.description,
                  chunks: r.chunks, inside: inside}) AS relations
}
// The chunks that say the keywords best (full-text index chunk_text, BM25), each with its score
// over the best one's: a word the embedder reads poorly still finds its chunks.
CALL (terms) {
  WITH terms WHERE size(terms) > 0 AND $text_limit > 0
  CALL db.index.fulltext.queryNodes('chunk_text', reduce(q = '', t IN terms | q + CASE WHEN q = '' THEN '' ELSE ' OR ' END + t))
  YIELD node, score
  WITH node, score ORDER BY score DESC, node.id LIMIT 4 * $text_limit
  RETURN collect({id: node.id, score: score}) AS hits
}
WITH seeds, relations, hits, coalesce(hits[0].score, 1.0) AS best_hit
// Candidate chunks: the closest by vector, the best full-text hits, and those the entities came from.
CALL (seeds, hits) {
  // The index is approximate: asked for four times as many, the closest ones are rarely missed.
  // Ranked by text and headings together (context_embedding; the text alone where a chunk lacks it).
  WITH 1 AS asked WHERE $chunk_limit > 0  // the index refuses to be asked for none
  CALL db.index.vector.queryNodes('chunk_embedding', 4 * $chunk_limit, $vector) YIELD node, score
  WITH node, score + $context_weight * coalesce(vector.similarity.cosine(node.context_embedding, $vector), score) AS closeness
  ORDER BY closeness DESC, node.id LIMIT $chunk_limit
  RETURN node AS t
  UNION
  // The question as another language's model reads it ($cross_vector, null where none can):
  // the closest chunks of that language.
  WITH 1 AS asked WHERE $chunk_limit > 0 AND $cross_vector IS NOT NULL
  CALL db.index.vector.queryNodes('chunk_embedding', 4 * $chunk_limit, $cross_vector) YIELD node, score
  WITH node, score + $context_weight * coalesce(vector.similarity.cosine(node.context_embedding, $cross_vector), score)
       AS closeness
  ORDER BY closeness DESC, node.id LIMIT $chunk_limit
  RETURN node AS t
  UNION
  UNWIND hits[..$text_limit] AS hit
  MATCH (t:Chunk {id: hit.id})
  RETURN t
  UNION
  UNWIND seeds AS e
  MATCH (e)-[:FROM_CHUNK]->(t:Chunk)
  RETURN t
}
WITH seeds, relations, t, coalesce(head([h IN hits WHERE h.id = t.id | h.score]), 0.0) / best_hit AS lexical
OPTIONAL MATCH (e:__Entity__)-[:FROM_CHUNK]->(t) WHERE e IN seeds
WITH seeds, relations, t, lexical, collect(e.name) AS entities
MATCH (t)-[:FROM_DOCUMENT]->(d:Document)
OPTIONAL MATCH (s:Section {id: t.section_id})
// The chunk after it in its section (hybrid.py: a passage whose match ends it goes on there).
OPTIONAL MATCH (t)-[:NEXT_CHUNK]->(after:Chunk) WHERE after.section_id = t.section_id
// A chunk's cosine to the question: its text's and its headings-and-text's, weighted. Each is the
// cosine to the question's own reading plus $cross_weight times that to another language's
// (a vector lives in one model's block, so one of the two is exactly 0).
WITH seeds, relations, t, lexical, entities, d, s, after.id AS next_id,
     2 * vector.similarity.cosine(t.embedding, $vector) - 1
       + $cross_weight * coalesce(2 * vector.similarity.cosine(t.embedding, $cross_vector) - 1, 0.0) AS text_cosine,
     2 * vector.similarity.cosine(t.context_embedding, $vector) - 1
       + $cross_weight * coalesce(2 * vector.similarity.cosine(t.context_embedding, $cross_vector) - 1, 0.0)
       AS context_cosine
WITH seeds, relations, collect({chunk_id: t.id, text: t.text, document: d.title, document_id: d.id, index: t.index,
                                section_path: s.path, entities: entities, embedding: t.embedding, lexical: lexical,
                                next_id: next_id,
                                cosine: CASE WHEN t.embedding IS NULL THEN 0.0
                                        ELSE (text_cosine + $context_weight * coalesce(context_cosine, text_cosine))
                                             / (1 + $context_weight) END}) AS chunks
// Community summaries: the closest by their report's embedding (exact: communities are few), and
// those holding the entities.
CALL (seeds) {
  CALL (seeds) {
    MATCH (c:Community) WHERE c.summary IS NOT NULL AND c.embedding IS NOT NULL
    WITH c ORDER BY vector.similarity.cosine(c.embedding, $vector)
                    + $cross_weight * coalesce(vector.similarity.cosine(c.embedding, $cross_vector), 0.5) DESC, c.id
    LIMIT $community_limit
    RETURN c
    UNION
    UNWIND seeds AS e
    MATCH (e)-[:IN_COMMUNITY]->(c:Community) WHERE c.summary IS NOT NULL AND c.embedding IS NOT NULL
    RETURN c
  }
  RETURN collect({id: c.id, level: c.level, title: c.title, summary: c.summary,
                  cosine: 2 * vector.similarity.cosine(c.embedding, $vector) - 1
                          + $cross_weight * coalesce(2 * vector.similarity.cosine(c.embedding, $cross_vector) - 1, 0.0)})
         AS communities
}
RETURN chunks, relations, communities;
