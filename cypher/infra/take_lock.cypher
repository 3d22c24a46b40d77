// write: take a run lock, in a transaction that stays open while the run lasts and is rolled back
// at its end: a second run of the same command waits here until then (commit, rollback, or the
// first process dying, which closes its connection and so ends its transaction).
// Browser: :param id => 'select'; :param holder => 'host:pid'

MATCH (l:__TripartiteLock {id: $id})
SET l.holder = $holder, l.since = datetime();
