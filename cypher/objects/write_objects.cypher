// Objects under investigation (an anamnesis, a fault report), in a batch. A changed object
// loses what was derived from its old text: its CONCERNS extracts and its Evidence.
// Parameters: $objects [{id, kind, title, text, path, content_hash}]

UNWIND $objects AS row
MATCH (o:Object {id: row.id})
WHERE o.content_hash <> row.content_hash OR o.kind <> row.kind
OPTIONAL MATCH (o)-[r:CONCERNS]->()
DELETE r;

UNWIND $objects AS row
MATCH (e:Evidence) WHERE e.object_id = row.id AND e.chunk_id IS NOT NULL AND e.concept_id IS NOT NULL
MATCH (o:Object {id: row.id})
WHERE o.content_hash <> row.content_hash OR o.kind <> row.kind
DETACH DELETE e;

UNWIND $objects AS row
MERGE (o:Object {id: row.id})
SET o.kind = row.kind, o.title = row.title, o.text = row.text, o.path = row.path,
    o.content_hash = row.content_hash, o.added_at = datetime();
