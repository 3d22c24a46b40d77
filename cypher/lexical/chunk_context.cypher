// read: chunks in their section's context (`tripartite ui`): each chunk's text, its document and
// section path, and the chunks just before and after it in the same section (NEXT_CHUNK).
// Browser: :param chunk_ids => ['hypertension:36d2c1f1c333']

UNWIND $chunk_ids AS id
MATCH (t:Chunk {id: id})
OPTIONAL MATCH (t)-[:FROM_DOCUMENT]->(d:Document)
OPTIONAL MATCH (s:Section {id: t.section_id})
OPTIONAL MATCH (before:Chunk)-[:NEXT_CHUNK]->(t) WHERE before.section_id = t.section_id
OPTIONAL MATCH (t)-[:NEXT_CHUNK]->(after:Chunk) WHERE after.section_id = t.section_id
RETURN t.id AS chunk_id, t.index AS index, t.text AS text, d.id AS document_id, d.title AS document,
       coalesce(s.path, []) AS section_path, before.text AS before, after.text AS after;
