// read: the material of one object's prompt (step 5): each concept of the object with its
// extract e(o,c), followed by the selected e(c,t) extracts in document reading order, each
// with its reference (document, section path, chunk), its score w and its percentile p.
// $max_per_concept, when set, is a budget: each concept keeps its best extracts by w (ties by
// chunk id), still printed in reading order. The paper's selection is max_per_concept null.
// Browser: :param object_id => 'patient-a'; :param max_per_concept => null

MATCH (o:Object {id: $object_id})-[oc:CONCERNS]->(c:Concept)
CALL (o, c) {
  OPTIONAL MATCH (e:Evidence) WHERE e.object_id = o.id AND e.concept_id = c.id AND e.selected = true
  WITH e ORDER BY e.w DESC, e.chunk_id
  WITH collect(e) AS ranked
  WITH CASE WHEN $max_per_concept IS NULL THEN ranked ELSE ranked[..$max_per_concept] END AS kept
  UNWIND CASE WHEN kept = [] THEN [null] ELSE kept END AS e
  OPTIONAL MATCH (t:Chunk {id: e.chunk_id})-[:FROM_DOCUMENT]->(d:Document)
  OPTIONAL MATCH (c)-[m:MENTIONED_IN]->(t)
  OPTIONAL MATCH (s:Section {id: t.section_id})
  WITH e, m, t, d, s ORDER BY d.id, t.index
  WITH collect(CASE WHEN m IS NULL THEN null ELSE
         {chunk_id: t.id, document: d.title, document_id: d.id, section_path: s.path, text: m.summary,
          w: e.w, reason: e.reason} END) AS cited
  // p = P_c(w) = (scores <= w) / n, from the concept's sorted score blocks (distribution.cypher):
  // every score of the blocks before w's block (the last block whose first score is <= w),
  // plus the scores <= w inside it; both found by binary search, each block read once.
  OPTIONAL MATCH (dist:ScoreDistribution {concept_id: c.id}) WHERE size(cited) > 0
  WITH cited, dist, dist.bounds AS bounds
  WITH cited, dist, [x IN cited | reduce(r = [0, size(bounds)], step IN range(1, 40) |
         CASE WHEN r[0] >= r[1] THEN r WHEN bounds[(r[0] + r[1]) / 2] <= x.w THEN [(r[0] + r[1]) / 2 + 1, r[1]]
              ELSE [r[0], (r[0] + r[1]) / 2] END)[0] - 1] AS block_of
  CALL (dist, block_of) {
    UNWIND block_of AS block
    WITH DISTINCT block
    MATCH (b:ScoreBlock {concept_id: dist.concept_id, block: block})
    RETURN collect([block, b.scores]) AS blocks
  }
  WITH cited, dist, block_of, [i IN range(0, size(cited) - 1) | [x IN blocks WHERE x[0] = block_of[i]][0][1]] AS scores
  WITH cited, [i IN range(0, size(cited) - 1) | toFloat(block_of[i] * dist.block_size +
         reduce(r = [0, size(scores[i])], step IN range(1, 40) |
           CASE WHEN r[0] >= r[1] THEN r WHEN scores[i][(r[0] + r[1]) / 2] <= cited[i].w THEN [(r[0] + r[1]) / 2 + 1, r[1]]
                ELSE [r[0], (r[0] + r[1]) / 2] END)[0]) / dist.n] AS p
  RETURN [i IN range(0, size(cited) - 1) | {chunk_id: cited[i].chunk_id, document: cited[i].document,
           document_id: cited[i].document_id, section_path: cited[i].section_path, text: cited[i].text,
           w: cited[i].w, p: p[i], reason: cited[i].reason}] AS evidence
}
// The question its prompt asks: the plugin's of the concept's ontology, when it has one.
OPTIONAL MATCH (ontology:Ontology {id: c.ontology})
RETURN o.id AS object_id, o.kind AS kind, c.id AS concept_id, c.name AS name, oc.summary AS summary, evidence,
       CASE WHEN ontology.question <> '' THEN ontology.question END AS question
ORDER BY name;
