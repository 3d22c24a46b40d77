// Step 1 of the selection (paper, section 2.2): one Evidence node per candidate (o, c, t),
// i.e. every object o with an extract e(o,c) and every chunk t with an extract e(c,t), and
// its score w = cos(E[e(o,c)], E[e(c,t)]).
// vector.similarity.cosine returns (1 + cos) / 2, computed in float32 (about 7 digits); w
// stores the cosine itself, in [-1, 1], rounded to 5 decimals: that is the precision the
// float32 arithmetic supports, and it defines ties (the NumPy reference rounds the same way).
// Candidates that no longer exist (an extract was removed) are swept: every Evidence node
// written now carries $run, and the others in scope are deleted.
// Runs as auto-commit queries, a few objects per transaction (in the Browser: :auto).
// Browser: :param object_ids => null; :param run => randomUUID()

MATCH (o:Object)
WHERE $object_ids IS NULL OR o.id IN $object_ids
CALL (o) {
  MATCH (o)-[oc:CONCERNS]->(c:Concept)-[ct:MENTIONED_IN]->(t:Chunk)
  WHERE oc.embedding IS NOT NULL AND ct.embedding IS NOT NULL
  MERGE (e:Evidence {id: o.id + '|' + c.id + '|' + t.id})
  SET e.object_id = o.id, e.concept_id = c.id, e.chunk_id = t.id, e.run = $run,
      e.w = round(2.0 * vector.similarity.cosine(oc.embedding, ct.embedding) - 1.0, 5)
} IN TRANSACTIONS OF 5 ROWS;

MATCH (e:Evidence)
WHERE ($object_ids IS NULL OR e.object_id IN $object_ids) AND coalesce(e.run, '') <> $run
CALL (e) { DETACH DELETE e } IN TRANSACTIONS OF 10000 ROWS;
