// read: chunks with concepts they were not yet analysed for. A chunk remembers every concept it
// was analysed for (analysed_concepts), found or not, so each (concept, chunk) pair is
// looked at once: adding a concept or a document analyses only the new pairs. With $redo
// ({current: 'provider/model', only_provider: null or a provider}), a chunk analysed by another
// provider or model (of that provider, when given) is analysed again for every concept.

MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d:Document)
WITH c, d, coalesce(c.analysed_by, head([(:Concept)-[m:MENTIONED_IN]->(c) | m.provider + '/' + m.model])) AS by
WITH c, d, CASE
  WHEN $redo IS NOT NULL AND by IS NOT NULL AND by <> $redo.current
       AND ($redo.only_provider IS NULL OR by STARTS WITH $redo.only_provider + '/') THEN $concept_ids
  ELSE [id IN $concept_ids WHERE NOT id IN coalesce(c.analysed_concepts, [])] END AS missing
WHERE size(missing) > 0
OPTIONAL MATCH (s:Section {id: c.section_id})
RETURN c.id AS id, c.text AS text, c.embedding AS embedding, d.title AS document,
       coalesce(s.title, d.title) AS section, missing
ORDER BY c.document_id, c.index;
