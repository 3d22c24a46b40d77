// write: the constraint that makes the migration lock one node per database (before anything else).

CREATE CONSTRAINT tripartite_migration_lock IF NOT EXISTS
FOR (l:__TripartiteMigrationLock) REQUIRE l.id IS UNIQUE;
