// write: load (or reload) one ontology: its Ontology node, concept classes and concepts, IN_CLASS
// and BROADER edges. Concepts and classes that left the file are removed together with what
// was derived from them (extract edges, Evidence, score distributions; see below). Runs in one
// transaction.
// Parameters: $ontology {id, name, version, description, source, checksum, question,
// chunk_prompt, object_prompt (its plugin's extraction prompts; '' for the default)},
// $classes [{id, key, name, description}], $concepts [{id, key, name, class_id, synonyms (the
// abbreviations among them), abbreviations, related, source, xrefs (codes elsewhere), notation,
// description, broader: [concept ids]}], $reworded [ids of concepts whose wording changed: see
// reworded_concepts]

MERGE (o:Ontology {id: $ontology.id})
SET o.version = $ontology.version, o.description = $ontology.description,
    o.source = $ontology.source, o.checksum = $ontology.checksum, o.question = $ontology.question,
    o.chunk_prompt = $ontology.chunk_prompt, o.object_prompt = $ontology.object_prompt,
    o.loaded_at = datetime();

// Concepts that are no longer in the file, and everything derived from them: their Evidence,
// score distributions and bins, and their ids in the chunks' and objects' lists of what they
// were analysed for (so a concept that comes back is analysed again; the answers are cached).
WITH [row IN $concepts | row.id] AS keep
MATCH (c:Concept {ontology: $ontology.id})
WHERE NOT c.id IN keep
WITH collect(c.id) AS gone
CALL (gone) {
  MATCH (e:Evidence) WHERE e.concept_id IN gone
  DETACH DELETE e
}
CALL (gone) {
  MATCH (b:ScoreBin) WHERE b.concept_id IN gone
  DETACH DELETE b
}
CALL (gone) {
  MATCH (s:ScoreDistribution) WHERE s.concept_id IN gone
  DETACH DELETE s
}
CALL (gone) {
  MATCH (t:Chunk) WHERE size(gone) > 0 AND any(id IN t.analysed_concepts WHERE id IN gone)
  SET t.analysed_concepts = [id IN t.analysed_concepts WHERE NOT id IN gone]
}
CALL (gone) {
  MATCH (o:Object) WHERE size(gone) > 0 AND any(id IN o.analysed_concepts WHERE id IN gone)
  SET o.analysed_concepts = [id IN o.analysed_concepts WHERE NOT id IN gone]
}
MATCH (c:Concept) WHERE c.id IN gone
DETACH DELETE c;

// Concepts reworded: every chunk and object is read for them again by the next `analyze` (the
// answers they gave were to other words). Their extracts stay until the new answers replace them.
CALL () {
  MATCH (t:Chunk) WHERE size($reworded) > 0 AND any(id IN t.analysed_concepts WHERE id IN $reworded)
  SET t.analysed_concepts = [id IN t.analysed_concepts WHERE NOT id IN $reworded]
}
CALL () {
  MATCH (o:Object) WHERE size($reworded) > 0 AND any(id IN o.analysed_concepts WHERE id IN $reworded)
  SET o.analysed_concepts = [id IN o.analysed_concepts WHERE NOT id IN $reworded]
};

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
    c.source = row.source, c.description = row.description, c.xrefs = row.xrefs, c.notation = row.notation,
    c.abbreviations = row.abbreviations,
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
