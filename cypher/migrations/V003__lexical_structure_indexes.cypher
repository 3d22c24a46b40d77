// Indexes behind the structure-edge scripts (cypher/lexical/), which match by these keys.

CREATE INDEX chunk_document IF NOT EXISTS FOR (c:Chunk) ON (c.document_id);
CREATE INDEX chunk_section IF NOT EXISTS FOR (c:Chunk) ON (c.section_id);
CREATE INDEX section_parent IF NOT EXISTS FOR (s:Section) ON (s.parent_id);
CREATE INDEX evidence_chunk IF NOT EXISTS FOR (e:Evidence) ON (e.chunk_id);
