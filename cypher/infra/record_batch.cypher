// write: remember a batch sent to the OpenAI Batch API, so `tripartite batches` finds it
// after any interruption: its id, the stage whose tasks it carries (analysis, kg-extract,
// kg-reports), that stage's options, the provider and model, and its state.
// Browser: :param batch => {id: 'batch_abc', stage: 'analysis', params: '{}', provider: 'openai',
//          model: 'gpt-4o-mini', endpoint: 'the OpenAI API', state: 'validating', input_file_id: 'file-1', requests: 10}
MERGE (b:__TripartiteBatch {id: $batch.id})
SET b.stage = $batch.stage, b.params = $batch.params, b.provider = $batch.provider, b.model = $batch.model,
    b.endpoint = $batch.endpoint, b.state = $batch.state, b.input_file_id = $batch.input_file_id,
    b.requests = $batch.requests, b.submitted_at = datetime(), b.collected = false
RETURN b.id AS id;
