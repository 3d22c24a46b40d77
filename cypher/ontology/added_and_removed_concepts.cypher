// read: what a reload of one ontology adds and removes: the file's concepts the graph does not
// hold yet (no chunk or object was read for them: `analyze` reads them), and the loaded
// concepts the file no longer has, with how many extracts go with them.
// Parameters: $ontology_id, $concept_ids (the file's)
// Browser: :param ontology_id => 'cardiology'; :param concept_ids => ['cardiology:hypertension']

CALL () {
  MATCH (c:Concept {ontology: $ontology_id})
  WHERE NOT c.id IN $concept_ids
  WITH c ORDER BY c.id
  RETURN collect(c.id) AS removed,
         sum(COUNT { (c)-[:MENTIONED_IN]->(:Chunk) } + COUNT { (:Object)-[:CONCERNS]->(c) }) AS removed_extracts
}
RETURN [id IN $concept_ids WHERE NOT EXISTS { (:Concept {id: id}) }] AS added, removed, removed_extracts;
