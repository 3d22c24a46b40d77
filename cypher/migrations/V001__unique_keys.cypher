// Unique keys of the three parts of the graph (see docs/graph-model.md).
// Every loader MERGEs on these keys, so re-running a load never duplicates a node.

// Lexical part, compatible with neo4j-graphrag's lexical graph.
CREATE CONSTRAINT document_id IF NOT EXISTS FOR (d:Document) REQUIRE d.id IS UNIQUE;
CREATE CONSTRAINT section_id IF NOT EXISTS FOR (s:Section) REQUIRE s.id IS UNIQUE;
CREATE CONSTRAINT chunk_id IF NOT EXISTS FOR (c:Chunk) REQUIRE c.id IS UNIQUE;

// Ontology part: several plugin ontologies live side by side, so concept and class ids
// carry their ontology's name ("cardiology:hypertension").
CREATE CONSTRAINT ontology_id IF NOT EXISTS FOR (o:Ontology) REQUIRE o.id IS UNIQUE;
CREATE CONSTRAINT concept_class_id IF NOT EXISTS FOR (k:ConceptClass) REQUIRE k.id IS UNIQUE;
CREATE CONSTRAINT concept_id IF NOT EXISTS FOR (c:Concept) REQUIRE c.id IS UNIQUE;

// Object part: the objects under investigation (anamneses, fault reports).
CREATE CONSTRAINT object_id IF NOT EXISTS FOR (o:Object) REQUIRE o.id IS UNIQUE;

// The classification graph G'(o): one Evidence node per (object, concept, chunk).
CREATE CONSTRAINT evidence_id IF NOT EXISTS FOR (e:Evidence) REQUIRE e.id IS UNIQUE;
