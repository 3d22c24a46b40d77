// write: reports' sentences (those of $community_ids replace what they had), each with its
// embedding and the chunks it came from, so that global search ranks sentences without embedding
// them again and each point cites its own sources. The sources of a sentence are the community's
// member chunks that hold it (or a piece of it) word for word or, failing that, the two most similar to it (cosine
// at least $min_cosine; Neo4j's similarity is (1 + cos) / 2).
// Browser: :param community_ids => ['L0-...']; :param rows => [{community_id: 'L0-...', n: 0, text: '...', embedding: []}];
//          :param min_cosine => 0.5

UNWIND $community_ids AS id
MATCH (:Community {id: id})-[:HAS_SENTENCE]->(old:ReportSentence)
DETACH DELETE old;

UNWIND $rows AS row
MATCH (c:Community {id: row.community_id})
CREATE (c)-[:HAS_SENTENCE]->(s:ReportSentence {community_id: c.id, n: row.n, text: row.text})
WITH c, s, row
CALL db.create.setNodeVectorProperty(s, 'embedding', row.embedding)
// A sentence may join clauses cut from several chunks ("...", an entity's joined descriptions) or
// put a label before a quote ("summary: explanation"): a chunk is a source word for word when it
// holds any piece of 20 characters or more.
WITH c, s, [piece IN split(replace(row.text, ': ', '...'), '...') WHERE size(trim(piece)) >= 20 | trim(piece)] AS pieces
CALL (c, s, pieces) {
  MATCH (e:__Entity__)-[:IN_COMMUNITY]->(:Community)-[:PARENT*0..]->(c)
  MATCH (e)-[:FROM_CHUNK]->(t:Chunk)
  WITH DISTINCT t, s, pieces
  WITH t, any(piece IN pieces WHERE t.text CONTAINS piece) AS verbatim,
       CASE WHEN t.embedding IS NOT NULL THEN vector.similarity.cosine(t.embedding, s.embedding) ELSE 0.0 END AS score
  WHERE verbatim OR score >= (1 + $min_cosine) / 2
  ORDER BY verbatim DESC, score DESC, t.id
  WITH collect({id: t.id, verbatim: verbatim}) AS found
  RETURN CASE WHEN any(x IN found WHERE x.verbatim) THEN [x IN found WHERE x.verbatim | x.id][0..3]
              ELSE [x IN found | x.id][0..2] END AS chunks
}
SET s.chunks = chunks;
