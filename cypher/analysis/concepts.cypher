// read: the concepts to analyse for (all loaded ontologies, or one).

MATCH (c:Concept)
WHERE $ontology IS NULL OR c.ontology = $ontology
RETURN c.id AS id, c.name AS name, coalesce(c.synonyms, []) AS synonyms,
       coalesce(c.description, '') AS description, c.ontology AS ontology
ORDER BY id;
