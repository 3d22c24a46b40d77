// read: one document and its first $limit chunks in reading order, each with its section path (the MCP
// resource tripartite://documents/{document_id}); no row when there is no such document.
// Browser: :param document_id => 'hypertension'; :param limit => 200

MATCH (d:Document {id: $document_id})
RETURN d.id AS id, d.title AS title, d.path AS source, d.chunk_count AS chunk_count,
       COLLECT {
         MATCH (c:Chunk)-[:FROM_DOCUMENT]->(d)
         WITH c ORDER BY c.index LIMIT $limit
         OPTIONAL MATCH path = (d)-[:HAS_SECTION]->(:Section)-[:HAS_SUBSECTION*0..]->(:Section)-[:HAS_CHUNK]->(c)
         RETURN {chunk_id: c.id, index: c.index, text: c.text,
                 sections: [n IN nodes(path)[1..-1] | n.title]} AS chunk
         ORDER BY c.index
       } AS chunks;
