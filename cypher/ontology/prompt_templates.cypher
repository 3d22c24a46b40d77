// read: each loaded ontology's own extraction prompts, stored when it was loaded from its plugin
// ('' where it has none: the default applies; null where an older version loaded it).

MATCH (o:Ontology)
RETURN o.id AS ontology, o.chunk_prompt AS chunk, o.object_prompt AS object
ORDER BY ontology;
