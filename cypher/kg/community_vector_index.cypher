// write: the vector index over community report embeddings (global search ranks communities with it).
// Browser: :param dimensions => 384

CREATE VECTOR INDEX community_embedding IF NOT EXISTS
FOR (c:Community) ON c.embedding
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
