// read: every chunk with where it sits (document, section path), in reading order: what
// `ontology draft` proposes concepts from and cites as the places each was seen.

MATCH (t:Chunk)-[:FROM_DOCUMENT]->(d:Document)
OPTIONAL MATCH (s:Section {id: t.section_id})
RETURN t.id AS id, t.text AS text, coalesce(d.title, d.id) AS document,
       coalesce(s.title, '') AS section
ORDER BY t.document_id, t.index;
