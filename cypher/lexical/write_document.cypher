// write: the Document node of the lexical graph (neo4j-graphrag compatible: id, path).
// Browser: :param document => {id: 'x', title: 'X', path: '/tmp/x.md', format: 'markdown', content_hash: '...', chunker: '...', size_bytes: 1, section_count: 0, chunk_count: 0}

MERGE (d:Document {id: $document.id})
SET d.title = $document.title,
    d.path = $document.path,
    d.format = $document.format,
    d.content_hash = $document.content_hash,
    d.chunker = $document.chunker,
    d.size_bytes = $document.size_bytes,
    d.section_count = $document.section_count,
    d.chunk_count = $document.chunk_count,
    d.ingested_at = datetime();
