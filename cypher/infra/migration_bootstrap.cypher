// write: the constraint behind the migration history, before the first migration runs.

CREATE CONSTRAINT tripartite_migration_version IF NOT EXISTS
FOR (m:__TripartiteMigration) REQUIRE m.version IS UNIQUE;
