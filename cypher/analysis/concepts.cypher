// read: the concepts to analyse for (all loaded ontologies, or one), with the gloss embedding an
// earlier run kept (see write_gloss_embeddings).

MATCH (c:Concept)
WHERE $ontology IS NULL OR c.ontology = $ontology
RETURN c.id AS id, c.name AS name, coalesce(c.synonyms, []) AS synonyms,
       coalesce(c.description, '') AS description, c.ontology AS ontology,
       c.gloss_embedding AS gloss_embedding, c.gloss_key AS gloss_key
ORDER BY id;
