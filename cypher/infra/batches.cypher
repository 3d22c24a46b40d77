// read: the batches sent to the Batch API, newest first (all, or one by $id; $open: only
// those not yet collected).
// Browser: :param id => null; :param open => false
MATCH (b:__TripartiteBatch)
WHERE ($id IS NULL OR b.id = $id) AND (NOT $open OR NOT b.collected)
RETURN b.id AS id, b.stage AS stage, b.params AS params, b.provider AS provider, b.model AS model,
       b.endpoint AS endpoint, b.state AS state, b.requests AS requests, b.collected AS collected,
       coalesce(b.completed, 0) AS completed, coalesce(b.failed, 0) AS failed, coalesce(b.answered, 0) AS answered,
       coalesce(b.stale, 0) AS stale, toString(b.submitted_at) AS submitted_at, toString(b.checked_at) AS checked_at
ORDER BY b.submitted_at DESC, b.id;
