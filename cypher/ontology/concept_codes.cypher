// read: each concept's codes: its notation, its source term (a CURIE such as DOID:5844) and its
// cross-references, for prompts that name them (`tripartite prompt --codes`).
// Parameters: $concept_ids

UNWIND $concept_ids AS concept_id
MATCH (c:Concept {id: concept_id})
RETURN c.id AS concept_id,
       [code IN [c.notation, c.source] + coalesce(c.xrefs, []) WHERE code IS NOT NULL AND trim(code) <> ''] AS codes;
