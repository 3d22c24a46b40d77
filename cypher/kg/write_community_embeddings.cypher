// write: a batch of re-embedded community reports, with the model that made them.
// Browser: :param rows => [{id: 'L0-...', embedding: [...]}]; :param model => 'all-MiniLM-L6-v2+bge-small-zh-v1.5'

UNWIND $rows AS row
MATCH (c:Community {id: row.id})
CALL db.create.setNodeVectorProperty(c, 'embedding', row.embedding)
SET c.embedding_model = $model;
