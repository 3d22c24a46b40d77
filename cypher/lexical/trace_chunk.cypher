// read: upward tracing: from a chunk to its section path and document (DB-GPT's idea).
// Browser: :param chunk_id => 'hypertension:0a1b2c3d4e5f'

MATCH (c:Chunk {id: $chunk_id})-[:FROM_DOCUMENT]->(d:Document)
OPTIONAL MATCH path = (d)-[:HAS_SECTION]->(:Section)-[:HAS_SUBSECTION*0..]->(s:Section)-[:HAS_CHUNK]->(c)
RETURN d.id AS document_id, d.title AS document, d.path AS source,
       [n IN nodes(path)[1..-1] | {id: n.id, title: n.title, level: n.level}] AS sections,
       c.id AS chunk_id, c.index AS index, c.token_count AS tokens, c.text AS text;
