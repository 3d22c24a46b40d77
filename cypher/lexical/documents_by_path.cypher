// read: the documents stored from these source files (a source keeps its id).
// Browser: :param paths => ['/data/guidelines/hypertension.md']

UNWIND $paths AS path
MATCH (d:Document {path: path})
RETURN d.path AS path, d.id AS id;
