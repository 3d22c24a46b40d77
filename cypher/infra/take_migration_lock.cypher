// write: take the database's migration lock, run in a transaction that stays open while the
// migrations run: a second `tripartite migrate` waits here until it ends (commit, rollback, or
// the first process dying, which closes its connection and releases the lock).
// Browser: :param holder => 'host:pid'

MERGE (l:__TripartiteMigrationLock {id: 'migrate'})
SET l.holder = $holder, l.since = datetime();
