// read: the loaded concepts whose wording a reload changes: name, description or synonyms, which
// the reader is told (name, description) and the pre-filter and the extractive reader match
// (name, synonyms). Their chunks and objects must be read again; how many extracts wait for it.
// Parameters: $concepts [{id, name, description, synonyms}] (the file's)
// Browser: :param concepts => [{id: 'cardiology:atrial_fibrillation', name: 'AF', description: '', synonyms: []}]

UNWIND $concepts AS row
MATCH (c:Concept {id: row.id})
WHERE c.name <> row.name OR coalesce(c.description, '') <> coalesce(row.description, '')
   OR coalesce(c.synonyms, []) <> coalesce(row.synonyms, [])
RETURN c.id AS id,
       COUNT { (c)-[:MENTIONED_IN]->(:Chunk) } AS chunk_extracts,
       COUNT { (:Object)-[:CONCERNS]->(c) } AS object_extracts
ORDER BY id;
