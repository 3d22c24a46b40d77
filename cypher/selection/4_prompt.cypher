// Step 5: the material of the prompt for one object: each concept of the object with its
// extract e(o,c), followed by the selected e(c,t) extracts in document reading order, each
// with its reference (document, section path, chunk), its score w and its percentile p.
// p = P_c(w) is read off the concept's sorted scores by binary search: the number of
// scores <= w, over n.
// Browser: :param object_id => 'patient-a'

MATCH (o:Object {id: $object_id})-[oc:CONCERNS]->(c:Concept)
CALL (o, c) {
  OPTIONAL MATCH (e:Evidence) WHERE e.object_id = o.id AND e.concept_id = c.id AND e.selected = true
  OPTIONAL MATCH (t:Chunk {id: e.chunk_id})-[:FROM_DOCUMENT]->(d:Document)
  OPTIONAL MATCH (c)-[m:MENTIONED_IN]->(t)
  OPTIONAL MATCH (s:Section {id: t.section_id})
  WITH e, m, t, d, s ORDER BY d.id, t.index
  WITH collect(CASE WHEN m IS NULL THEN null ELSE
         {chunk_id: t.id, document: d.title, document_id: d.id, section_path: s.path, text: m.summary,
          w: e.w, reason: e.reason} END) AS cited
  OPTIONAL MATCH (dist:ScoreDistribution {concept_id: c.id}) WHERE size(cited) > 0
  WITH cited, dist.scores AS scores, dist.n AS n
  RETURN [x IN cited | x {.*, p: toFloat(reduce(r = [0, n], step IN range(1, 64) |
            CASE WHEN r[0] >= r[1] THEN r
                 WHEN scores[(r[0] + r[1]) / 2] <= x.w THEN [(r[0] + r[1]) / 2 + 1, r[1]]
                 ELSE [r[0], (r[0] + r[1]) / 2] END)[0]) / n}] AS evidence
}
RETURN o.id AS object_id, o.kind AS kind, c.id AS concept_id, c.name AS name, oc.summary AS summary, evidence
ORDER BY name;
