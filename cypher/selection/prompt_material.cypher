// read: the material of one object's prompt (step 5): each concept of the object with its
// extract e(o,c), followed by the chosen e(c,t) extracts in document reading order, each with
// its reference (document, section path, chunk), its score w and its reason (percentiles.cypher
// gives P_c(w) for the extracts a prompt keeps).
// Which extracts:
//   $selection 'paper'  the paper's selection: alpha, then the Markov blanket (reason alpha | beta);
//   $selection 'floor'  (the default) the same, plus each concept's best candidate (reason floor
//                       when alpha and beta did not take it), so no concept goes without evidence.
//   $max_per_concept    when set, each concept keeps its best N extracts by w (ties: chunk id).
//   $max_tokens         when set, a budget for the whole prompt: the weakest extracts are dropped
//                       first, and no concept loses its last one while another still has two.
//   $tokens_per_concept without $max_tokens, the budget is this many tokens per concept of the
//                       object (plus $fixed_tokens): prompts grow with what the object raises. It
//                       drops only extras: every concept keeps its best extract (the floor's
//                       promise); only an absolute $max_tokens takes a concept's last one.
//                       Sizes are the extracts' stored token counts (cl100k_base), a reference
//                       line per cited chunk and $fixed_tokens for the question and headings;
//                       the CLI measures the laid-out prompt and asks again if it is still over.
// Browser: :param object_id => 'patient-a'; :param selection => 'floor'; :param max_per_concept => null;
//          :param max_tokens => null; :param tokens_per_concept => 120; :param fixed_tokens => 60

MATCH (o:Object {id: $object_id})-[oc:CONCERNS]->(c:Concept)
CALL (o, c) {
  // The pair's selected candidates, best first (classify.cypher): the paper's selection leaves
  // out the floor's own pick.
  OPTIONAL MATCH (e:Evidence {object_id: o.id, concept_id: c.id})
  WITH [i IN range(0, size(coalesce(e.chunk_ids, [])) - 1)
        WHERE coalesce($selection, 'floor') = 'floor' OR e.reasons[i] <> 'floor'
        | {chunk_id: e.chunk_ids[i], w: e.w[i], reason: e.reasons[i]}] AS ranked
  WITH CASE WHEN $max_per_concept IS NULL THEN ranked ELSE ranked[..$max_per_concept] END AS kept
  UNWIND range(0, size(kept) - 1) AS rank
  WITH kept[rank] AS e, rank
  MATCH (c)-[m:MENTIONED_IN]->(t:Chunk {id: e.chunk_id})
  OPTIONAL MATCH (t)-[:FROM_DOCUMENT]->(d:Document)
  OPTIONAL MATCH (s:Section {id: t.section_id})
  RETURN collect({concept_id: c.id, chunk_id: t.id, rank: rank, w: e.w, reason: e.reason,
                  text: m.summary, document: d.title, document_id: d.id, section_path: s.path, index: t.index,
                  text_tokens: coalesce(m.tokens, size(m.summary) / 4 + 1),
                  // its reference names the chunk's own section under its document's title, which
                  // the references print once (lexical/trails.py references_block)
                  reference_tokens: 8 + CASE WHEN size(coalesce(s.path, [])) > CASE WHEN s.path[0] = d.title THEN 1 ELSE 0 END
                                             THEN (size(s.path[-1]) + 3) / 4 ELSE 0 END,
                  title_tokens: size(coalesce(d.title, '')) / 4 + 2}) AS items
}
WITH o, collect({concept: c, summary: oc.summary, items: items, name_tokens: size(c.name) / 4 + 2,
                 summary_tokens: coalesce(oc.tokens, size(oc.summary) / 4 + 1) + 3}) AS rows
// The budget. Drop order: first every extract that is not its concept's best, weakest first;
// then the concepts' best ones, weakest first. The size model follows the layout: concepts the
// object describes with the same words share one line; an extract costs its line, and its text
// only once per chunk (a repeat is printed as "(quoted above)"); a chunk's reference line is
// freed when no kept extract cites it, its document's title line when none cites the document.
// Per chunk (per chunk and text, per document), the extract dropped last carries those shared costs.
WITH o, rows, coalesce($max_tokens, coalesce($fixed_tokens, 0) + $tokens_per_concept * size(rows)) AS budget
CALL (rows, budget) {
  UNWIND CASE WHEN budget IS NULL THEN [] ELSE rows END AS row  // no budget: nothing to order
  UNWIND row.items AS x
  WITH x ORDER BY CASE WHEN x.rank = 0 THEN 1 ELSE 0 END, x.w, x.chunk_id DESC, x.concept_id DESC
  RETURN collect(x) AS drop_order
}
CALL (drop_order) {
  UNWIND range(0, size(drop_order) - 1) AS i
  WITH drop_order[i].chunk_id AS chunk_id, max(i) AS last
  RETURN collect(last) AS reference_carriers
}
CALL (drop_order) {
  UNWIND range(0, size(drop_order) - 1) AS i
  WITH drop_order[i].chunk_id AS chunk_id, drop_order[i].text AS text, max(i) AS last
  RETURN collect(last) AS text_carriers
}
CALL (drop_order) {
  UNWIND range(0, size(drop_order) - 1) AS i
  WITH drop_order[i].document_id AS document_id, max(i) AS last
  RETURN collect(last) AS title_carriers
}
CALL (rows) {
  UNWIND rows AS row
  WITH DISTINCT row.summary AS summary, row.summary_tokens AS tokens
  RETURN sum(tokens) AS summary_tokens
}
WITH o, rows, budget, drop_order,
     [i IN range(0, size(drop_order) - 1) | 5 + CASE WHEN i IN text_carriers THEN drop_order[i].text_tokens ELSE 3 END
        + CASE WHEN i IN reference_carriers THEN drop_order[i].reference_tokens ELSE 0 END
        + CASE WHEN i IN title_carriers THEN drop_order[i].title_tokens ELSE 0 END] AS savings,
     coalesce($fixed_tokens, 0) + summary_tokens + reduce(n = 0, row IN rows | n + row.name_tokens) AS base
WITH o, rows, budget, drop_order, savings, base + reduce(n = 0, x IN savings | n + x) AS total
// The fewest drops that bring the total within the budget ([saved so far, drops needed]); a
// per-concept budget stops before the concepts' best extracts (the end of the drop order).
WITH o, rows, budget, drop_order, savings, total,
     CASE WHEN $max_tokens IS NULL THEN size([x IN drop_order WHERE x.rank > 0]) ELSE size(drop_order) END AS droppable
WITH o, rows, budget, drop_order,
     CASE WHEN budget IS NULL OR total <= budget THEN 0
          ELSE coalesce(reduce(state = [0, null], i IN range(0, droppable - 1) |
                 CASE WHEN state[1] IS NOT NULL THEN state
                      ELSE [state[0] + savings[i], CASE WHEN total - state[0] - savings[i] <= budget THEN i + 1 END]
                 END)[1], droppable) END AS dropped
WITH o, rows, budget, dropped, [x IN drop_order[..dropped] | [x.concept_id, x.chunk_id]] AS dropped_keys
UNWIND rows AS row
WITH o, budget, dropped, row.concept AS c, row.summary AS summary,
     [x IN row.items WHERE dropped_keys = [] OR NOT [x.concept_id, x.chunk_id] IN dropped_keys] AS cited
CALL (cited) {
  UNWIND cited AS x
  WITH x ORDER BY x.document_id, x.index
  RETURN collect({chunk_id: x.chunk_id, document: x.document, document_id: x.document_id,
                  section_path: x.section_path, index: x.index, text: x.text, w: x.w, reason: x.reason}) AS evidence
}
// The question its prompt asks: the plugin's of the concept's ontology, when it has one.
OPTIONAL MATCH (ontology:Ontology {id: c.ontology})
RETURN o.id AS object_id, o.kind AS kind, c.id AS concept_id, c.name AS name, summary, evidence, budget, dropped,
       CASE WHEN ontology.question <> '' THEN ontology.question END AS question
ORDER BY name, concept_id;
