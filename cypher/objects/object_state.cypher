// read: what the database holds of some objects: enough to tell unchanged from changed.

UNWIND $object_ids AS id
MATCH (o:Object {id: id})
RETURN o.id AS id, o.content_hash AS content_hash, o.kind AS kind, o.path AS path;
