"""Embedding chunks that have no vector from the current model, and the vector index.

Resumable by construction: each batch is written in its own transaction, and a run only
asks for chunks still lacking an embedding from the configured model.
"""
from __future__ import annotations

from typing import Callable

import neo4j

from tripartite import scripts
from tripartite.embeddings import embedding_dimensions
from tripartite.errors import TripartiteError

INDEX_NAME = "chunk_embedding"
FETCH = 256


def ensure_vector_index(driver: neo4j.Driver, database: str, dimensions: int, index_name: str = INDEX_NAME) -> None:
    records, _, _ = driver.execute_query(
        "SHOW VECTOR INDEXES YIELD name, options WHERE name = $name "
        "RETURN options.indexConfig.`vector.dimensions` AS dimensions", name=index_name, database_=database)
    if records and records[0]["dimensions"] != dimensions:
        raise TripartiteError(f"vector index {index_name} holds {records[0]['dimensions']}-dimensional vectors but the "
                              f"embedding model gives {dimensions}; drop it (DROP INDEX {index_name}) and run "
                              "`tripartite embed` to rebuild it for the new model")
    if not records:
        scripts.write(driver, database, "lexical/chunk_vector_index", index_name=index_name, dimensions=dimensions)


def pending_count(driver: neo4j.Driver, database: str, model: str) -> int:
    records, _, _ = driver.execute_query(
        "MATCH (c:Chunk) WHERE c.embedding IS NULL OR c.embedding_model IS NULL OR c.embedding_model <> $model "
        "RETURN count(c) AS n", model=model, database_=database, routing_="r")
    return records[0]["n"]


def embed_chunks(driver: neo4j.Driver, database: str, embedder,
                 on_progress: Callable[[int], None] = lambda n: None) -> int:
    """Embed every chunk that lacks a vector from `embedder`; return how many were embedded."""
    model = embedder.name
    done = 0
    index_ready = False
    while True:
        rows = scripts.query(driver, database, "lexical/chunks_to_embed", model=model, limit=FETCH)
        if not rows:
            return done
        vectors = embedder.embed([row["text"] for row in rows])
        if not index_ready:
            ensure_vector_index(driver, database, int(vectors.shape[1]) or embedding_dimensions(embedder))
            index_ready = True
        payload = [{"id": row["id"], "embedding": vector.tolist()} for row, vector in zip(rows, vectors)]
        scripts.write(driver, database, "lexical/write_chunk_embeddings", rows=payload, model=model)
        done += len(rows)
        on_progress(len(rows))
