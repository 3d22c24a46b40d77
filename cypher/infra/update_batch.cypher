// write: a batch's state as last seen, and once collected how many answers it gave, how many
// failed and how many no task wanted any more (the graph changed meanwhile).
// Browser: :param id => 'batch_abc'; :param changes => {state: 'completed', completed: 10}
MATCH (b:__TripartiteBatch {id: $id})
SET b += $changes, b.checked_at = datetime()
RETURN b.id AS id;
