// read: the objects, with how many concepts each concerns so far.

MATCH (o:Object)
WHERE $kind IS NULL OR o.kind = $kind
RETURN o.id AS id, o.kind AS kind, o.title AS title, size(o.text) AS characters,
       COUNT { (o)-[:CONCERNS]->() } AS concepts, o.path AS path
ORDER BY id;
