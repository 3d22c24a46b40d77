// read: objects with concepts they were not yet analysed for.

MATCH (o:Object)
WITH o, [id IN $concept_ids WHERE NOT id IN coalesce(o.analysed_concepts, [])] AS missing
WHERE size(missing) > 0
RETURN o.id AS id, o.kind AS kind, o.text AS text, missing
ORDER BY id;
