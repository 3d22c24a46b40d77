// Step 1 of the selection (paper, section 2.2): one Evidence node per candidate (o, c, t),
// i.e. every object o with an extract e(o,c) and every chunk t with an extract e(c,t), and
// its score w = cos(E[e(o,c)], E[e(c,t)]).
// vector.similarity.cosine returns (1 + cos) / 2, computed in float32 (about 7 digits); w
// stores the cosine itself, in [-1, 1], rounded to 5 decimals: that is the precision the
// float32 arithmetic supports, and it defines ties (the NumPy reference rounds the same way).
// w is written only when it changed, so a re-run over unchanged extracts writes nothing.
// Runs as auto-commit queries, a few objects per transaction (in the Browser: :auto).
// Browser: :param object_ids => null   (or ['patient-a'])

MATCH (o:Object)
WHERE $object_ids IS NULL OR o.id IN $object_ids
CALL (o) {
  MATCH (o)-[oc:CONCERNS]->(c:Concept)-[ct:MENTIONED_IN]->(t:Chunk)
  WHERE oc.embedding IS NOT NULL AND ct.embedding IS NOT NULL
  WITH o, c, t, round(2.0 * vector.similarity.cosine(oc.embedding, ct.embedding) - 1.0, 5) AS w
  MERGE (e:Evidence {object_id: o.id, chunk_id: t.id, concept_id: c.id})
  WITH e, w WHERE e.w IS NULL OR e.w <> w
  SET e.w = w
} IN TRANSACTIONS OF 5 ROWS;

// Candidates that no longer exist (an extract was removed or lost its embedding). An object
// has stale Evidence only when it has more Evidence than candidates, so the per-node check
// runs for those objects alone.
MATCH (o:Object)
WHERE $object_ids IS NULL OR o.id IN $object_ids
CALL (o) {
  WITH o WHERE COUNT { MATCH (e:Evidence) WHERE e.object_id = o.id AND e.chunk_id IS NOT NULL AND e.concept_id IS NOT NULL }
             > COUNT { MATCH (o)-[oc:CONCERNS]->(:Concept)-[ct:MENTIONED_IN]->(:Chunk)
                       WHERE oc.embedding IS NOT NULL AND ct.embedding IS NOT NULL }
  MATCH (e:Evidence) WHERE e.object_id = o.id AND e.chunk_id IS NOT NULL AND e.concept_id IS NOT NULL
    AND NOT EXISTS { MATCH (o)-[oc:CONCERNS]->(:Concept {id: e.concept_id})-[ct:MENTIONED_IN]->(:Chunk {id: e.chunk_id})
                     WHERE oc.embedding IS NOT NULL AND ct.embedding IS NOT NULL }
  DETACH DELETE e
} IN TRANSACTIONS OF 10 ROWS;
