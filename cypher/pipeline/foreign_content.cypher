// read: what the database holds besides a run's own documents, objects and ontology, found by
// their source files: `tripartite eval` measures one corpus and `tripartite demo` must not touch
// anyone's data, so anything else stops them.
// Browser: :param document_paths => []; :param object_paths => []; :param ontology => 'cardiology'

CALL () { MATCH (d:Document) WHERE NOT coalesce(d.path, '') IN $document_paths RETURN collect(d.id) AS documents }
CALL () { MATCH (o:Object) WHERE NOT coalesce(o.path, '') IN $object_paths RETURN collect(o.id) AS objects }
CALL () { MATCH (n:Ontology) WHERE n.id <> $ontology RETURN collect(n.id) AS ontologies }
RETURN documents, objects, ontologies;
