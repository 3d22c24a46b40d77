// write: record a repeatable (R__) migration as applied with its current checksum.

MERGE (m:__TripartiteMigration {file: $file})
ON CREATE SET m.repeatable = true
SET m.description = $description, m.checksum = $checksum, m.applied_at = datetime(),
    m.duration_ms = $duration_ms, m.statements = $statements;
