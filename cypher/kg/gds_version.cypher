// read: the Graph Data Science version (an error where the server has no GDS).

RETURN gds.version() AS version;
