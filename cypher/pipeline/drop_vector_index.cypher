// auto: drop a vector index whose size belongs to another embedding model (`tripartite embed`
// creates it again for the current one, and the vectors it held are re-embedded).
// Browser: :param index_name => 'chunk_embedding'

DROP INDEX $index_name IF EXISTS;
