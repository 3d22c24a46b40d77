// write: load (or reload) one ontology: its Ontology node, concept classes and concepts, IN_CLASS
// and BROADER edges. Concepts and classes that left the file are removed together with what
// was derived from them (extract edges, Evidence). Runs in one transaction.
// Parameters: $ontology {id, name, version, description, source, checksum, question},
// $classes [{id, key, name, description}], $concepts [{id, key, name, class_id, synonyms,
// related, source, description, broader: [concept ids]}]

MERGE (o:Ontology {id: $ontology.id})
SET o.version = $ontology.version, o.description = $ontology.description,
    o.source = $ontology.source, o.checksum = $ontology.checksum, o.question = $ontology.question,
    o.loaded_at = datetime();

// Concepts that are no longer in the file, and everything hanging off them.
MATCH (c:Concept {ontology: $ontology.id})
WHERE NOT c.id IN [row IN $concepts | row.id]
OPTIONAL MATCH (e:Evidence {concept_id: c.id})
DETACH DELETE e, c;

MATCH (k:ConceptClass {ontology: $ontology.id})
WHERE NOT k.id IN [row IN $classes | row.id]
DETACH DELETE k;

MATCH (o:Ontology {id: $ontology.id})
UNWIND $classes AS row
MERGE (k:ConceptClass {id: row.id})
SET k.key = row.key, k.name = row.name, k.description = row.description, k.ontology = $ontology.id
MERGE (k)-[:IN_ONTOLOGY]->(o);

UNWIND $concepts AS row
MERGE (c:Concept {id: row.id})
SET c.key = row.key, c.name = row.name, c.synonyms = row.synonyms, c.related = row.related,
    c.source = row.source, c.description = row.description,
    c.ontology = $ontology.id, c.class_id = row.class_id
WITH c, row
MATCH (k:ConceptClass {id: row.class_id})
MERGE (c)-[:IN_CLASS]->(k)
WITH c, k
MATCH (c)-[old:IN_CLASS]->(other) WHERE other <> k
DELETE old;

// BROADER edges are redrawn from the file each time.
MATCH (c:Concept {ontology: $ontology.id})-[b:BROADER]->()
DELETE b;

UNWIND $concepts AS row
UNWIND row.broader AS parent_id
MATCH (c:Concept {id: row.id}), (parent:Concept {id: parent_id})
MERGE (c)-[:BROADER]->(parent);
