// Evidence looked up by its concept alone: removing an ontology (cypher/ontology/remove_ontology
// .cypher) or the concepts that left a reloaded one (write_ontology.cypher) takes each concept's
// Evidence. The per-pair key (V013) serves lookups on both properties only.

CREATE INDEX evidence_concept IF NOT EXISTS FOR (e:Evidence) ON (e.concept_id);
