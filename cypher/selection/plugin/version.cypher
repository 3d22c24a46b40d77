// read: the hash of the sources the server's procedure plugin was built from (an error where the
// server has no plugin).

RETURN tripartite.selection.version() AS version;
