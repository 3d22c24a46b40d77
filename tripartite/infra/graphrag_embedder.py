"""One of the project's embedders in neo4j-graphrag's Embedder type, which its retrievers
require: the query is read by the same model (for the default, the model of its language,
into that model's block of the vector) as the chunks were, so its vector is comparable with
theirs, and by the default's other models where they can read it (infra/question_vectors.py:
an English question finds Chinese passages). `model` is the name the graph records on each chunk
(Chunk.embedding_model)."""
from __future__ import annotations

from neo4j_graphrag.embeddings.base import Embedder

from tripartite.infra.question_vectors import question_vector


class GraphRAGEmbedder(Embedder):
    def __init__(self, embedder):
        super().__init__()
        self.embedder = embedder
        self.model = embedder.name

    def embed_query(self, text: str) -> list[float]:
        return question_vector(self.embedder, text).tolist()
