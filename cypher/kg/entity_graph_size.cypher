// read: what community detection would work on: entities, relations between them, and how many
// chunks are not extracted yet (so the communities would cover only part of the documents).
// Browser: :param version => 'triplets-...'

RETURN COUNT { (:__Entity__) } AS entities,
       COUNT { (:__Entity__)-[r]->(:__Entity__) WHERE r.chunks IS NOT NULL } AS relations,
       COUNT { (:Chunk) } AS chunks,
       COUNT { (t:Chunk) WHERE t.kg_version IS NULL } AS unextracted;
