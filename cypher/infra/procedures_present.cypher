// read: which of the named procedures the server offers (run against any database).
// Browser: :param names => ['apoc.custom.installProcedure']

SHOW PROCEDURES YIELD name
WHERE name IN $names
RETURN collect(name) AS present;
