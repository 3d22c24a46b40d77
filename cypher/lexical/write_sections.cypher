// write: section nodes, one per Markdown heading (or PDF outline entry, or page), in a batch.
// parent_id and order are what structure_edges.cypher turns into edges.

UNWIND $sections AS row
MERGE (s:Section {id: row.id})
SET s.document_id = row.document_id,
    s.parent_id = row.parent_id,
    s.title = row.title,
    s.level = row.level,
    s.order = row.order,
    s.path = row.path;
