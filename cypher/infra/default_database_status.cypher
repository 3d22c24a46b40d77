// read: whether the server's default database is online (run against the system database; the local server's readiness test).

SHOW DEFAULT DATABASE YIELD currentStatus
RETURN currentStatus;
