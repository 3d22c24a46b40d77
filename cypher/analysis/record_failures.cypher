// write: the chunks and objects whose analysis failed in this run, with the error, so that
// prompt, objects list and analyze say so (a later successful answer clears it).
// Browser: :param failures => [{item_id: 'patient-b', stage: 'object', error: '...'}]

UNWIND $failures AS f
CALL (f) {
  MATCH (n:Chunk {id: f.item_id}) WHERE f.stage = 'chunk'
  RETURN n
  UNION
  MATCH (n:Object {id: f.item_id}) WHERE f.stage = 'object'
  RETURN n
}
SET n.analysis_error = f.error, n.analysis_failed_at = datetime();
