// auto: score the candidates (paper, section 2.2, step 1): for every object o with an extract
// e(o,c) and every chunk t with an extract e(c,t), w(o,c,t) = cos(E[e(o,c)], E[e(c,t)]). The
// store keeps them per (object, concept) pair, on its CONCERNS edge: oc.scores, one w per chunk
// of the concept, in the order of the concept's chunk list (:ScoreDistribution {chunks}, the
// ids of the chunks with an embedded extract of it, sorted). Nothing is written per candidate.
// vector.similarity.cosine returns (1 + cos) / 2, computed in float32 (about 7 digits); w is
// the cosine itself, in [-1, 1], rounded to 5 decimals: the precision the float32 arithmetic
// supports, and what defines ties. The procedure plugin computes the very same numbers.
// A full run ($object_ids null) sets every concept's chunk list first; an incremental one
// scores its objects against the lists as they are (documents and chunk extracts did not
// change since the last full run, or it would be a full one).
// One concept per transaction, $concurrency at a time (concepts never share a CONCERNS edge);
// in the Browser put :auto in front.
// Browser: :param object_ids => null   (or ['patient-a']); :param concurrency => 2

// Each concept's chunk list (a full run only).
MATCH (k:Concept)
WHERE $object_ids IS NULL
CALL (k) {
  OPTIONAL MATCH (k)-[ct:MENTIONED_IN]->(t:Chunk) WHERE ct.embedding IS NOT NULL
  WITH t ORDER BY t.id
  WITH [id IN collect(t.id) WHERE id IS NOT NULL] AS chunks
  MERGE (s:ScoreDistribution {concept_id: k.id})
  SET s.chunks = chunks
} IN $concurrency CONCURRENT TRANSACTIONS OF 5 ROWS;

// Every pair's scores, against its concept's chunk list; a pair without an embedded extract
// has none.
MATCH (k:Concept)
CALL (k) {
  MATCH (s:ScoreDistribution {concept_id: k.id})
  CALL (k, s) {
    UNWIND s.chunks AS id
    MATCH (k)-[ct:MENTIONED_IN]->(:Chunk {id: id})
    RETURN collect(ct.embedding) AS vectors
  }
  MATCH (o:Object)-[oc:CONCERNS]->(k)
  WHERE $object_ids IS NULL OR o.id IN $object_ids
  // The embedding read once per pair (inside the list it would be read again for every chunk).
  WITH oc, s, vectors, oc.embedding AS embedding
  SET oc.scores = CASE WHEN embedding IS NULL OR size(vectors) <> size(s.chunks) THEN null
                       ELSE [v IN vectors | round(2.0 * vector.similarity.cosine(embedding, v) - 1.0, 5)] END
  // The concept's histogram no longer follows its scores: distribution.cypher rebuilds it.
  WITH DISTINCT s
  SET s.current = false
} IN $concurrency CONCURRENT TRANSACTIONS OF 1 ROW;
