// read: the objects stored from these source files (a source keeps its id).
// Browser: :param paths => ['/data/notes/patient-a.md']

UNWIND $paths AS path
MATCH (o:Object {path: path})
RETURN o.path AS path, o.id AS id;
