// read: Tripartite for a free-text question (search/tripartite_question.py): the paper's steps
// 1-4 for a question read like an object, without storing it. For each concept the question
// concerns, $concepts gives its extract's embedding; every chunk extract e(c,t) of the concept
// is a candidate with w = the cosine of the two (as score.cypher computes it). Selection
// against the stored distributions: P_c(w) > alpha iff w >= the concept's alpha_w, and the
// Markov blanket takes a candidate whose chunk an alpha-selected one cites when w >= beta_w
// (classify.cypher's rules). A concept with no stored distribution (no object was scored on
// it) uses the question's own candidates as its distribution: the w at rank floor(alpha * n)
// (of n, ascending) is the smallest with P_c(w) > alpha. 'floor' adds each concept's best
// candidate. Rows come best first per concept, the unselected ones too (reason null, at most
// $per_concept of each concept): a budget with room left is filled from them.
// Browser: :param concepts => [{concept_id: 'hypertension', vector: [...]}]; :param alpha => 0.9;
//          :param beta => 0.5; :param selection => 'floor'; :param per_concept => 20

UNWIND $concepts AS q
MATCH (c:Concept {id: q.concept_id})-[m:MENTIONED_IN]->(t:Chunk)
WHERE m.embedding IS NOT NULL
WITH q, c, t, m, round(2.0 * vector.similarity.cosine(q.vector, m.embedding) - 1.0, 5) AS w
ORDER BY w
WITH c, collect({t: t, m: m, w: w}) AS ranked
OPTIONAL MATCH (s:ScoreDistribution {concept_id: c.id})
WITH c, ranked, coalesce(s.n, 0) > 0 AND s.alpha_w IS NOT NULL AS stored, s
WITH c, ranked, stored,
     CASE WHEN stored THEN s.alpha_w ELSE ranked[toInteger(floor($alpha * size(ranked)))].w END AS alpha_w,
     CASE WHEN stored THEN s.beta_w ELSE ranked[toInteger(floor($beta * size(ranked)))].w END AS beta_w
WITH collect({c: c, ranked: ranked, alpha_w: alpha_w, beta_w: beta_w, stored: stored}) AS concepts
WITH concepts, [x IN concepts | [y IN x.ranked WHERE x.alpha_w IS NOT NULL AND y.w >= x.alpha_w | y.t.id]] AS anchors
WITH concepts, reduce(all = [], ids IN anchors | all + ids) AS anchored
UNWIND concepts AS x
WITH x, anchored, reverse(x.ranked) AS best_first
UNWIND range(0, size(best_first) - 1) AS rank
WITH x, rank, best_first[rank] AS y, anchored
WITH x, rank, y, CASE WHEN x.alpha_w IS NOT NULL AND y.w >= x.alpha_w THEN 'alpha'
                      WHEN x.beta_w IS NOT NULL AND y.w >= x.beta_w AND y.t.id IN anchored THEN 'beta'
                      WHEN rank = 0 THEN 'floor' END AS reason
WITH x, rank, y, CASE WHEN reason = 'floor' AND coalesce($selection, 'floor') <> 'floor' THEN null ELSE reason END AS reason
WHERE reason IS NOT NULL OR rank < $per_concept
WITH x.c AS c, x.stored AS stored, y.t AS t, y.m AS m, y.w AS w, reason, rank,
     // Without a stored distribution, P_c(w) among the question's own candidates.
     CASE WHEN x.stored THEN null ELSE toFloat(size([z IN x.ranked WHERE z.w <= y.w])) / size(x.ranked) END AS own_p
OPTIONAL MATCH (t)-[:FROM_DOCUMENT]->(d:Document)
OPTIONAL MATCH (s:Section {id: t.section_id})
RETURN c.id AS concept_id, c.name AS name, stored, t.id AS chunk_id, w, reason, rank, own_p, m.summary AS text,
       d.title AS document, d.id AS document_id, s.path AS section_path, t.index AS index
ORDER BY concept_id, rank;
