// write: a batch of re-embedded extracts, with the model that made them. The selection's inputs
// changed with them (w is the cosine of two extracts): prompts wait for the next `select`.
// Browser: :param rows => [{id: '5:...', embedding: [...]}]; :param model => 'all-MiniLM-L6-v2+bge-small-zh-v1.5'

UNWIND $rows AS row
MATCH ()-[r:MENTIONED_IN|CONCERNS]->() WHERE elementId(r) = row.id
CALL db.create.setRelationshipVectorProperty(r, 'embedding', row.embedding)
SET r.embedding_model = $model;
