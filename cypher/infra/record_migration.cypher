// write: record a versioned migration as applied (in the migration's own transaction when it writes data).
// Browser: :param version => 1; :param description => 'unique_keys'; :param file => 'V001__unique_keys.cypher'

CREATE (m:__TripartiteMigration {version: $version, description: $description, file: $file,
                                  checksum: $checksum, applied_at: datetime(), duration_ms: $duration_ms,
                                  statements: $statements});
