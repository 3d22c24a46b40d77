// auto: classify the candidates (steps 3 and 4), node classification of the paper's G'(o):
//   alpha step:  a candidate is selected when P_c(w) > alpha, i.e. w >= its concept's alpha_w;
//   beta step:   the Markov blanket also selects a candidate when it cites the same chunk as
//                an alpha-selected candidate of the same object and P_c(w) > beta (w >= beta_w).
// One pass is the fixpoint: a beta-selected candidate shares its chunk with an alpha one.
// The same pass marks the floor, a step beyond the paper: each (object, concept) pair's best
// candidate (highest w, then the smallest chunk id), which the prompt's default selection keeps
// whatever alpha and beta say (reason 'floor' where they left it out).
// The store keeps only what is selected: one (:Evidence {object_id, concept_id}) per pair, with
// its selected candidates as parallel lists chunk_ids, w and reasons, best first (highest w,
// then the smallest chunk id: the pair's floor is always first). It is written only where it
// changed. The objects classified are those given (every object when $object_ids is null);
// an incremental run adds the objects whose class a moved threshold may change.
// One object per transaction, $concurrency at a time (objects never share an Evidence node); in
// the Browser put :auto in front.
// Browser: :param object_ids => null   (null classifies every object); :param concurrency => 2

// Incremental runs: when a concept's thresholds moved (new scores, or new alpha and beta), only
// candidates whose w lies between the old and the new threshold change their own test, and
// through the blanket the other candidates of their object: those objects are marked to be
// classified again. A concept never classified (a new one) takes all of its objects: w >= -2
// covers every cosine.
MATCH (s:ScoreDistribution)
WHERE $object_ids IS NOT NULL
UNWIND CASE WHEN s.classified IS NULL THEN [[-2.0, null]]
            ELSE [[s.classified_alpha_w, s.alpha_w], [s.classified_beta_w, s.beta_w]] END AS moved
WITH s, moved WHERE (moved[0] IS NULL) <> (moved[1] IS NULL) OR moved[0] <> moved[1]
// A missing threshold means "nothing passes": the range then runs to the top.
WITH s.concept_id AS concept_id,
     CASE WHEN moved[0] IS NULL THEN moved[1] WHEN moved[1] IS NULL THEN moved[0]
          WHEN moved[0] < moved[1] THEN moved[0] ELSE moved[1] END AS low,
     CASE WHEN moved[0] IS NULL OR moved[1] IS NULL THEN null
          WHEN moved[0] < moved[1] THEN moved[1] ELSE moved[0] END AS high
MATCH (o:Object)-[oc:CONCERNS]->(:Concept {id: concept_id})
WHERE any(x IN coalesce(oc.scores, []) WHERE x >= low AND (high IS NULL OR x < high))
WITH DISTINCT o
SET o.reclassify = true;

MATCH (o:Object)
WHERE $object_ids IS NULL OR o.id IN $object_ids OR o.reclassify
CALL (o) {
  CALL (o) {
    MATCH (o)-[oc:CONCERNS]->(k:Concept) WHERE size(coalesce(oc.scores, [])) > 0
    MATCH (s:ScoreDistribution {concept_id: k.id})
    // Properties bound once: inside a list expression they would be read again for every element.
    WITH k.id AS concept, s.chunks AS chunks, oc.scores AS w, s.alpha_w AS a, s.beta_w AS b
    WITH concept, chunks, w, a, b,
         reduce(best = 0, i IN range(1, size(w) - 1) | CASE WHEN w[i] > w[best] THEN i ELSE best END) AS best
    // Only a candidate that passes alpha or beta, or is its pair's best, can be chosen.
    UNWIND [i IN range(0, size(w) - 1) WHERE (a IS NOT NULL AND w[i] >= a) OR (b IS NOT NULL AND w[i] >= b) OR i = best] AS i
    WITH chunks[i] AS chunk, {concept: concept, w: w[i], alpha: a IS NOT NULL AND w[i] >= a,
                              beta: b IS NOT NULL AND w[i] >= b, floor: i = best} AS x
    WITH chunk, collect(x) AS group
    WITH chunk, group, any(x IN group WHERE x.alpha) AS anchored
    UNWIND group AS x
    WITH chunk, x, CASE WHEN x.alpha THEN 'alpha' WHEN anchored AND x.beta THEN 'beta' WHEN x.floor THEN 'floor' END AS reason
    WHERE reason IS NOT NULL
    WITH x.concept AS concept, chunk, x.w AS w, reason
    ORDER BY concept, w DESC, chunk
    WITH concept, collect(chunk) AS chunk_ids, collect(w) AS ws, collect(reason) AS reasons
    RETURN collect({concept: concept, chunk_ids: chunk_ids, w: ws, reasons: reasons}) AS pairs
  }
  CALL (o, pairs) {
    UNWIND pairs AS p
    OPTIONAL MATCH (old:Evidence {object_id: o.id, concept_id: p.concept})
    WITH p, old WHERE old IS NULL OR old.chunk_ids <> p.chunk_ids OR old.w <> p.w OR old.reasons <> p.reasons
    MERGE (e:Evidence {object_id: o.id, concept_id: p.concept})
    SET e.chunk_ids = p.chunk_ids, e.w = p.w, e.reasons = p.reasons
  }
  CALL (o, pairs) {
    MATCH (e:Evidence {object_id: o.id})
    WHERE NOT e.concept_id IN [p IN pairs | p.concept]
    DELETE e
  }
  REMOVE o.reclassify
} IN $concurrency CONCURRENT TRANSACTIONS OF 4 ROWS;

// Evidence of objects that are gone (a full run only).
MATCH (e:Evidence)
WHERE $object_ids IS NULL AND NOT EXISTS { MATCH (:Object {id: e.object_id}) }
DELETE e;

// The stored classification now reflects the current thresholds (the objects a moved
// threshold could change were classified above).
MATCH (s:ScoreDistribution)
SET s.classified = true, s.classified_alpha_w = s.alpha_w, s.classified_beta_w = s.beta_w;
