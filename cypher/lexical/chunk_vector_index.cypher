// write: the vector index over chunk embeddings that neo4j-graphrag's VectorRetriever queries.
// Its size follows the embedding model: 384 for all-MiniLM-L6-v2.
// Browser: :param index_name => 'chunk_embedding'; :param dimensions => 384

CREATE VECTOR INDEX $index_name IF NOT EXISTS
FOR (c:Chunk) ON c.embedding
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
