// read: what the database holds of some documents: enough to tell unchanged from changed.

UNWIND $document_ids AS id
MATCH (d:Document {id: id})
RETURN d.id AS id, d.content_hash AS content_hash, d.chunker AS chunker, d.path AS path;
