// read: chunks with concepts they were not yet analysed for. A chunk remembers every concept it
// was analysed for (analysed_concepts), found or not, so each (concept, chunk) pair is
// looked at once: adding a concept or a document analyses only the new pairs.

MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d:Document)
WITH c, d, [id IN $concept_ids WHERE NOT id IN coalesce(c.analysed_concepts, [])] AS missing
WHERE size(missing) > 0
OPTIONAL MATCH (s:Section {id: c.section_id})
RETURN c.id AS id, c.text AS text, c.embedding AS embedding, d.title AS document,
       coalesce(s.title, d.title) AS section, missing
ORDER BY c.document_id, c.index;
