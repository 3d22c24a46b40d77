// Indexes for the lookups the pipeline scripts make.

// Reading order and upward tracing.
CREATE INDEX chunk_index IF NOT EXISTS FOR (c:Chunk) ON (c.index);
CREATE INDEX document_path IF NOT EXISTS FOR (d:Document) ON (d.path);
CREATE INDEX section_document IF NOT EXISTS FOR (s:Section) ON (s.document_id);

// Concepts are found by name in the Browser and by ontology in the CLI.
CREATE INDEX concept_name IF NOT EXISTS FOR (c:Concept) ON (c.name);
CREATE INDEX concept_ontology IF NOT EXISTS FOR (c:Concept) ON (c.ontology);
CREATE INDEX object_kind IF NOT EXISTS FOR (o:Object) ON (o.kind);

// Selection works per object and per concept.
CREATE INDEX evidence_object IF NOT EXISTS FOR (e:Evidence) ON (e.object_id);
CREATE INDEX evidence_concept IF NOT EXISTS FOR (e:Evidence) ON (e.concept_id);
