// read: the objects, with how many concepts each concerns so far, who analysed it, and the error
// of its last analysis when that failed.

MATCH (o:Object)
WHERE $kind IS NULL OR o.kind = $kind
RETURN o.id AS id, o.kind AS kind, o.title AS title, size(o.text) AS characters,
       COUNT { (o)-[:CONCERNS]->() } AS concepts, o.path AS path, o.analysed_by AS analysed_by,
       o.analysis_error AS analysis_error
ORDER BY id;
