// write: store a batch of chunk embeddings as float32 vectors, with the model that made them.

UNWIND $rows AS row
MATCH (c:Chunk {id: row.id})
CALL db.create.setNodeVectorProperty(c, 'embedding', row.embedding)
SET c.embedding_model = $model;
