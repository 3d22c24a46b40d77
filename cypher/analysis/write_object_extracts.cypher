// write: e(o, c): what object o says about concept c, with its embedding and provenance, in a batch.
// As for chunks: the concepts analysed and who analysed the object are remembered, an extract
// the answer no longer gives is removed (a redo), and a recorded failure is cleared.

UNWIND $rows AS row
MATCH (o:Object {id: row.item_id})
SET o.analysed_concepts = coalesce(o.analysed_concepts, [])
      + [id IN row.analysed WHERE NOT id IN coalesce(o.analysed_concepts, [])],
    o.analysed_by = coalesce(row.by, o.analysed_by),
    o.selection_stale = true
REMOVE o.analysis_error, o.analysis_failed_at
WITH o, row
CALL (o, row) {
  MATCH (o)-[gone:CONCERNS]->(c:Concept)
  WHERE c.id IN row.analysed AND NOT c.id IN [e IN row.extracts | e.concept_id]
  // Its scores leave the concept's histogram with it: the next select rebuilds that.
  OPTIONAL MATCH (s:ScoreDistribution {concept_id: c.id}) WHERE gone.scores IS NOT NULL
  SET s.current = false
  DELETE gone
}
WITH o, row
UNWIND row.extracts AS e
MATCH (c:Concept {id: e.concept_id})
MERGE (o)-[r:CONCERNS]->(c)
SET r.summary = e.summary, r.provider = $provider, r.model = $model,
    r.prompt_version = row.prompt_version, r.tokens = e.tokens, r.embedding_model = $embedding_model, r.analysed_at = datetime()
WITH r, e
CALL db.create.setRelationshipVectorProperty(r, 'embedding', e.embedding);
