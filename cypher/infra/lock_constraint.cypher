// write: the constraint that makes each run lock one node (migration V011 creates it too; the
// first `tripartite migrate` needs it before any migration has run).

CREATE CONSTRAINT tripartite_run_lock IF NOT EXISTS
FOR (l:__TripartiteLock) REQUIRE l.id IS UNIQUE;
