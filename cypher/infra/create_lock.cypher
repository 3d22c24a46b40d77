// write: the node of a run lock, created once and committed (taking it is take_lock.cypher).
// Browser: :param id => 'select'

MERGE (:__TripartiteLock {id: $id});
