// write: store a batch of chunk embeddings as float32 vectors, with the model that made them:
// the text's (embedding, which the vector index holds) and the headings' and text's
// (context_embedding: a chunk that says "set these two values" is found by its section's title).

UNWIND $rows AS row
MATCH (c:Chunk {id: row.id})
CALL db.create.setNodeVectorProperty(c, 'embedding', row.embedding)
CALL db.create.setNodeVectorProperty(c, 'context_embedding', row.context_embedding)
SET c.embedding_model = $model;
