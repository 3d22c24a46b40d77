// read: the loaded ontologies with their classes and concepts.

MATCH (o:Ontology)
RETURN o.id AS id, o.version AS version, o.description AS description, o.source AS source,
       COUNT { (:ConceptClass)-[:IN_ONTOLOGY]->(o) } AS classes,
       COUNT { MATCH (c:Concept {ontology: o.id}) } AS concepts,
       toString(o.loaded_at) AS loaded_at
ORDER BY id;
