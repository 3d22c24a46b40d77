// write: a community's report (title, summary, rating, findings, as Microsoft GraphRAG's reports)
// and the embedding of its text, which global search ranks communities by.
// Browser: :param rows => [{id: 'L0-...', title: '', summary: '', rating: 0.0, rating_explanation: '', findings: [], text: '', embedding: []}]; :param model => 'all-MiniLM-L6-v2'

UNWIND $rows AS row
MATCH (c:Community {id: row.id})
SET c.title = row.title, c.summary = row.summary, c.rating = row.rating,
    c.rating_explanation = row.rating_explanation, c.findings = row.findings, c.report = row.text,
    c.report_provider = $provider, c.report_model = $model, c.embedding_model = $embedding_model,
    c.reported_at = datetime()
WITH c, row
CALL db.create.setNodeVectorProperty(c, 'embedding', row.embedding);
