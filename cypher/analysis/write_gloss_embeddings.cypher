// write: keep each concept's gloss embedding (name, description, synonyms as one text) for the
// pre-filter, with the key it was made under (embedding model and a hash of the text), so
// later runs reuse it and a changed gloss or model makes a new one.
// Parameters: $rows [{id, embedding, key}]

UNWIND $rows AS row
MATCH (c:Concept {id: row.id})
SET c.gloss_embedding = row.embedding, c.gloss_key = row.key;
