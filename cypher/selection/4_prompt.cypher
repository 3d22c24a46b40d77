// Step 5: the material of the prompt for one object: each concept of the object with its
// extract e(o,c), followed by the selected e(c,t) extracts in document reading order, each
// with its reference (document, section path, chunk).
// Browser: :param object_id => 'patient-a'

MATCH (o:Object {id: $object_id})-[oc:CONCERNS]->(c:Concept)
CALL (o, c) {
  OPTIONAL MATCH (e:Evidence {object_id: o.id, concept_id: c.id, selected: true})
  OPTIONAL MATCH (t:Chunk {id: e.chunk_id})-[:FROM_DOCUMENT]->(d:Document)
  OPTIONAL MATCH (c)-[m:MENTIONED_IN]->(t)
  OPTIONAL MATCH (s:Section {id: t.section_id})
  WITH e, m, t, d, s ORDER BY d.id, t.index
  RETURN [x IN collect(CASE WHEN m IS NULL THEN null ELSE
            {chunk_id: t.id, document: d.title, document_id: d.id, section_path: s.path, text: m.summary,
             w: e.w, p: e.p, reason: e.reason} END) WHERE x IS NOT NULL] AS evidence
}
RETURN o.id AS object_id, o.kind AS kind, c.id AS concept_id, c.name AS name, oc.summary AS summary, evidence
ORDER BY name;
