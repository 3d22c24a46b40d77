// A source keeps the id it was stored under: objects are found by the file they came from,
// as documents are (document_path, V002).

CREATE INDEX object_path IF NOT EXISTS FOR (o:Object) ON (o.path);
