// write: a community's report (title, summary, rating, findings, as Microsoft GraphRAG's reports),
// the embedding of its text, which global search ranks communities by, what it was written from
// (a hash of its input) and by whom. Its sentences are written by write_report_sentences.cypher.
// Browser: :param rows => [{id: 'L0-...', title: '', summary: '', rating: 0.0, rating_explanation: '', findings: [], text: '', input: '', embedding: []}]; :param provider => 'extractive'; :param model => '...'; :param embedding_model => 'all-MiniLM-L6-v2'

UNWIND $rows AS row
MATCH (c:Community {id: row.id})
SET c.title = row.title, c.summary = row.summary, c.rating = row.rating,
    c.rating_explanation = row.rating_explanation, c.findings = row.findings, c.report = row.text,
    c.report_provider = $provider, c.report_model = $model, c.embedding_model = $embedding_model,
    c.report_input = row.input, c.reported_at = datetime()
WITH c, row
CALL db.create.setNodeVectorProperty(c, 'embedding', row.embedding);
