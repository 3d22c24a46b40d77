"""Embedding chunks that have no vector from the current model, and the vector index.

Each chunk gets two vectors: its text's (the vector index, vector RAG) and its headings' and
text's together, "Title > Section\ntext" (hybrid search ranks by both: a short chunk under
"Field weakening > Configuration" says what it is about only through its headings).

Resumable by construction: each batch is written in its own transaction, and a run only
asks for chunks still lacking an embedding from the configured model.
"""
from __future__ import annotations

from typing import Callable

from tripartite.infra.embeddings import embedding_dimensions
from tripartite.infra.errors import TripartiteError
from tripartite.infra.graph import Graph
from tripartite.lexical.trails import reference_trail

INDEX_NAME = "chunk_embedding"
FETCH = 256


def ensure_vector_index(graph: Graph, dimensions: int, index_name: str = INDEX_NAME) -> None:
    existing = graph.one("lexical/vector_index_dimensions", index_name=index_name)
    if existing and existing["dimensions"] != dimensions:
        raise TripartiteError(f"vector index {index_name} holds {existing['dimensions']}-dimensional vectors but the "
                              f"embedding model gives {dimensions}: the graph was embedded by another model; run "
                              "`tripartite embed` (`--dry-run` says how much it re-embeds and about how long it "
                              "takes), which re-embeds it and rebuilds the index")
    if not existing:
        graph.run("lexical/chunk_vector_index", index_name=index_name, dimensions=dimensions)


def pending_count(graph: Graph, model: str) -> int:
    return graph.run("lexical/count_chunks_to_embed", model=model)[0]["chunks"]


def pending_line(graph: Graph, model: str) -> str:
    """One line when chunks lack a vector from `model` (the text's, or the headings' and text's),
    as hybrid search and `doctor` say it; "" when none do."""
    missing = pending_count(graph, model)
    return (f"{missing:,} chunks lack an embedding of their text or of their headings and text from {model}: "
            "run `tripartite embed`") if missing else ""


def embed_chunks(graph: Graph, embedder, on_progress: Callable[[int], None] = lambda n: None) -> int:
    """Embed every chunk that lacks a vector from `embedder`; return how many were embedded."""
    model = embedder.name
    done = 0
    index_ready = False
    while True:
        rows = graph.run("lexical/chunks_to_embed", model=model, limit=FETCH)
        if not rows:
            return done
        vectors = embedder.embed([row["text"] for row in rows])
        contexts = embedder.embed([f"{reference_trail(row)}\n{row['text']}" for row in rows])
        if not index_ready:
            ensure_vector_index(graph, int(vectors.shape[1]) or embedding_dimensions(embedder))
            index_ready = True
        payload = [{"id": row["id"], "embedding": vector.tolist(), "context_embedding": context.tolist()}
                   for row, vector, context in zip(rows, vectors, contexts)]
        graph.run("lexical/write_chunk_embeddings", rows=payload, model=model)
        done += len(rows)
        on_progress(len(rows))
