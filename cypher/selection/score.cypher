// auto: score every candidate (paper, section 2.2, step 1): one Evidence node per candidate
// (o, c, t), i.e. every object o with an extract e(o,c) and every chunk t with an extract
// e(c,t), and its score w = cos(E[e(o,c)], E[e(c,t)]).
// vector.similarity.cosine returns (1 + cos) / 2, computed in float32 (about 7 digits); w
// stores the cosine itself, in [-1, 1], rounded to 5 decimals: that is the precision the
// float32 arithmetic supports, and it defines ties (the NumPy reference rounds the same way).
// o.evidence_count remembers how many candidates the object had, so stale Evidence (an
// extract was removed) is looked for only where the numbers disagree.
// A few objects per transaction and $concurrency transactions at a time (objects never share an
// Evidence node, so they do not wait on each other); in the Browser put :auto in front.
// Browser: :param object_ids => null   (or ['patient-a']); :param run => randomUUID();
//          :param concurrency => 2   (the CLI passes the server's processors, or [selection] concurrency)

// Objects scored for the first time: plain CREATE, the fast path.
MATCH (o:Object)
WHERE ($object_ids IS NULL OR o.id IN $object_ids)
  AND NOT EXISTS { MATCH (e:Evidence) WHERE e.object_id = o.id AND e.chunk_id IS NOT NULL AND e.concept_id IS NOT NULL }
CALL (o) {
  CALL (o) {
    MATCH (o)-[oc:CONCERNS]->(c:Concept)-[ct:MENTIONED_IN]->(t:Chunk)
    WHERE oc.embedding IS NOT NULL AND ct.embedding IS NOT NULL
    CREATE (e:Evidence {object_id: o.id, chunk_id: t.id, concept_id: c.id,
                        w: round(2.0 * vector.similarity.cosine(oc.embedding, ct.embedding) - 1.0, 5)})
    RETURN count(e) AS candidates
  }
  SET o.evidence_count = candidates, o.evidence_run = $run
} IN $concurrency CONCURRENT TRANSACTIONS OF 5 ROWS;

// Objects scored before: w is rewritten only where it changed, and Evidence whose candidate
// is gone is deleted.
MATCH (o:Object)
WHERE ($object_ids IS NULL OR o.id IN $object_ids) AND coalesce(o.evidence_run, '') <> $run
CALL (o) {
  CALL (o) {
    MATCH (o)-[oc:CONCERNS]->(c:Concept)-[ct:MENTIONED_IN]->(t:Chunk)
    WHERE oc.embedding IS NOT NULL AND ct.embedding IS NOT NULL
    WITH o, c, t, round(2.0 * vector.similarity.cosine(oc.embedding, ct.embedding) - 1.0, 5) AS w
    MERGE (e:Evidence {object_id: o.id, chunk_id: t.id, concept_id: c.id})
    WITH e, w, e.w IS NULL AS created
    FOREACH (_ IN CASE WHEN created OR e.w <> w THEN [1] END | SET e.w = w)
    RETURN count(e) AS candidates, count(CASE WHEN created THEN 1 END) AS created
  }
  WITH o, candidates, coalesce(o.evidence_count, -1) + created <> candidates AS maybe_stale
  SET o.evidence_count = candidates, o.evidence_run = $run
  WITH o WHERE maybe_stale
  MATCH (e:Evidence) WHERE e.object_id = o.id AND e.chunk_id IS NOT NULL AND e.concept_id IS NOT NULL
    AND NOT EXISTS { MATCH (o)-[oc:CONCERNS]->(:Concept {id: e.concept_id})-[ct:MENTIONED_IN]->(:Chunk {id: e.chunk_id})
                     WHERE oc.embedding IS NOT NULL AND ct.embedding IS NOT NULL }
  DETACH DELETE e
} IN $concurrency CONCURRENT TRANSACTIONS OF 5 ROWS;
