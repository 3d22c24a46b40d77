// write: e(c, t): what chunk t says about concept c, with its embedding and provenance, in a batch.
// Every concept the chunk was analysed for is remembered, including those it says nothing
// about (no edge for them), and who analysed it (analysed_by: provider/model; a row with
// `by` null was decided without a call). An extract of an analysed concept that the answer no
// longer gives is removed (a redo with another model); MERGE keeps a re-run from duplicating
// edges. A successful answer clears the chunk's recorded failure.

UNWIND $rows AS row
MATCH (t:Chunk {id: row.item_id})
SET t.analysed_concepts = coalesce(t.analysed_concepts, [])
      + [id IN row.analysed WHERE NOT id IN coalesce(t.analysed_concepts, [])],
    t.analysed_by = coalesce(row.by, t.analysed_by)
REMOVE t.analysis_error, t.analysis_failed_at
WITH t, row
CALL (t, row) {
  MATCH (c:Concept)-[gone:MENTIONED_IN]->(t)
  WHERE c.id IN row.analysed AND NOT c.id IN [e IN row.extracts | e.concept_id]
  DELETE gone
}
WITH t, row
UNWIND row.extracts AS e
MATCH (c:Concept {id: e.concept_id})
MERGE (c)-[m:MENTIONED_IN]->(t)
SET m.summary = e.summary, m.provider = $provider, m.model = $model,
    m.prompt_version = row.prompt_version, m.tokens = e.tokens, m.embedding_model = $embedding_model, m.analysed_at = datetime()
WITH m, e
CALL db.create.setRelationshipVectorProperty(m, 'embedding', e.embedding);
