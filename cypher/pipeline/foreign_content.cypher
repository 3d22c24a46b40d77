// read: what the database holds besides an evaluation's own documents, objects and ontology:
// `tripartite eval` measures one corpus, so anything else would leak into its prompts.
// Browser: :param document_ids => []; :param object_ids => []; :param ontology => 'cardiology'

CALL () { MATCH (d:Document) WHERE NOT d.id IN $document_ids RETURN collect(d.id) AS documents }
CALL () { MATCH (o:Object) WHERE NOT o.id IN $object_ids RETURN collect(o.id) AS objects }
CALL () { MATCH (n:Ontology) WHERE n.id <> $ontology RETURN collect(n.id) AS ontologies }
RETURN documents, objects, ontologies;
