// The text of one object.

MATCH (o:Object {id: $object_id})
RETURN o.text AS text, o.kind AS kind;
