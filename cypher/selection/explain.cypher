// read: why an object's prompt cites what it cites (`tripartite ui`, an object's page). For each
// concept the object concerns: the object's extract e(o,c); the concept's distribution of w as
// the selection stored it (distribution.cypher: n, the lowest bin, the counts below each bin,
// the scores an incremental plugin run left unbinned) with the thresholds the stored
// classification used (P_c(w) > alpha is w >= alpha_w, and so for beta); the candidates the
// classification selected for the object, with their reasons (Evidence, classify.cypher); and
// the object's best rejected candidates, $rejected of them by w. Every number is read from the
// selection store: nothing is scored again.
// Browser: :param object_id => 'patient-a'; :param rejected => 3

MATCH (o:Object {id: $object_id})-[oc:CONCERNS]->(c:Concept)
OPTIONAL MATCH (s:ScoreDistribution {concept_id: c.id})
OPTIONAL MATCH (e:Evidence {object_id: o.id, concept_id: c.id})
WITH c, oc, s, e, coalesce(e.chunk_ids, []) AS chosen
// oc.scores holds one w per chunk of the concept's list (s.chunks), in its order (score.cypher).
CALL (oc, s, chosen) {
  UNWIND range(0, size(coalesce(oc.scores, [])) - 1) AS i
  WITH s.chunks[i] AS chunk_id, oc.scores[i] AS w
  WHERE NOT chunk_id IN chosen
  WITH chunk_id, w ORDER BY w DESC, chunk_id LIMIT $rejected
  RETURN collect({chunk_id: chunk_id, w: w}) AS rejected
}
RETURN c.id AS concept_id, c.name AS name, coalesce(c.synonyms, []) AS synonyms, oc.summary AS extract,
       size(coalesce(oc.scores, [])) AS candidates, s.n AS n, s.low AS low, coalesce(s.below, []) AS below,
       coalesce(s.unbinned, []) AS unbinned,
       coalesce(s.classified_alpha_w, s.alpha_w) AS alpha_w, coalesce(s.classified_beta_w, s.beta_w) AS beta_w,
       [i IN range(0, size(chosen) - 1) | {chunk_id: chosen[i], w: e.w[i], reason: e.reasons[i]}] AS selected,
       rejected
ORDER BY toLower(c.name), c.id;
