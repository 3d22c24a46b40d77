// read: the processors the Neo4j server's JVM sees (the default number of concurrent
// transactions for the selection's CALL ... IN CONCURRENT TRANSACTIONS). Managed servers
// (Aura) may not allow dbms.queryJmx; the caller then falls back to its default.
CALL dbms.queryJmx('java.lang:type=OperatingSystem') YIELD attributes
RETURN attributes.AvailableProcessors.value AS processors
