// read: the migrations applied to this database, versioned (version set) and repeatable (version null).

MATCH (m:__TripartiteMigration)
WHERE m.version IS NOT NULL OR m.file IS NOT NULL
RETURN m.version AS version, m.description AS description, m.file AS file, m.checksum AS checksum,
       toString(m.applied_at) AS applied_at
ORDER BY m.version;
