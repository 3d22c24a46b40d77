"""`tripartite embed`: every vector of the graph made by the configured embedding model.

A graph holds vectors of three kinds: chunks' (their text's and their headings-and-text's,
which the vector index and every search read), the pre-analysis' extracts' (MENTIONED_IN and
CONCERNS, whose cosine is the selection's w) and community reports' (with their sentences,
which global and hybrid search rank). Each records the model that made it. After the model
changes (a new default, or [embeddings] model), vectors of two models must never meet: this
finds what another model made, says how much and about how long re-embedding takes
(`--dry-run`), and re-embeds it in batches, each written in its own transaction, so an
interrupted run resumes where it stopped. A vector index whose size belongs to the old model
is dropped and made again for the new one.
"""
from __future__ import annotations

import time
from typing import Callable

from tripartite.infra.embeddings import embedding_dimensions
from tripartite.infra.graph import Graph
from tripartite.kg.communities import write_sentences
from tripartite.lexical.embed import embed_chunks

KINDS = ("chunks", "extracts", "communities")
INDEXES = {"chunks": "chunk_embedding", "communities": "community_embedding"}
TEXTS_PER_ITEM = {"chunks": 2, "extracts": 1, "communities": 6}  # a chunk's two vectors; a report's and its sentences'
EXTRACT_BATCH = 256
COMMUNITY_BATCH = 64
SAMPLE = 24  # chunk texts timed for the estimate


def vectors_by_model(graph: Graph) -> list[dict]:
    """[{kind, model (None: not embedded), items}] over the graph."""
    return graph.run("pipeline/vectors_by_model")


def stale_counts(graph: Graph, models: dict[str, str]) -> dict[str, int]:
    """Items of each kind whose vectors another model than `models[kind]` made, or none."""
    counts = dict.fromkeys(KINDS, 0)
    for row in vectors_by_model(graph):
        if row["model"] != models[row["kind"]]:
            counts[row["kind"]] += row["items"]
    return counts


def texts_per_second(graph: Graph, embedder) -> float:
    """The embedder's speed on this graph's own chunks (a sample, timed once)."""
    rows = graph.run("lexical/chunks_to_embed", model="", limit=SAMPLE) or [{"text": "a sample sentence"}]
    texts = [f"{row['text']} " for row in rows]  # not the texts themselves: a kept vector would time nothing
    started = time.perf_counter()
    embedder.embed(texts)
    return len(texts) / max(time.perf_counter() - started, 1e-6)


class Embedders:
    """Chunks and community reports are embedded by the configured model (an endpoint's, say);
    extracts always by the local one, the space concepts and extracts are compared in."""

    def __init__(self, chunks, extracts):
        self.chunks, self.extracts = chunks, extracts

    def models(self) -> dict[str, str]:
        return {"chunks": self.chunks.name, "extracts": self.extracts.name, "communities": self.chunks.name}


def plan(graph: Graph, embedders: Embedders) -> dict:
    """What `embed` would do: the models, what each model made, what is stale and an estimate."""
    stale = stale_counts(graph, embedders.models())
    seconds = 0.0
    for embedder, kinds in ((embedders.chunks, ("chunks", "communities")), (embedders.extracts, ("extracts",))):
        texts = sum(TEXTS_PER_ITEM[kind] * stale[kind] for kind in kinds)
        seconds += texts / texts_per_second(graph, embedder) if texts else 0.0
    dimensions = embedding_dimensions(embedders.chunks)
    rebuilt = [name for name in INDEXES.values()
               if (row := graph.one("lexical/vector_index_dimensions", index_name=name)) and row["dimensions"] != dimensions]
    return {"models": embedders.models(), "by_model": vectors_by_model(graph), "stale": stale,
            "seconds": round(seconds, 1), "indexes_rebuilt": rebuilt}


def reembed(graph: Graph, embedders: Embedders, on_progress: Callable[[int], None] = lambda n: None) -> dict:
    """Re-embed every stale vector; {kind: items re-embedded}."""
    dimensions = embedding_dimensions(embedders.chunks)
    for name in INDEXES.values():
        row = graph.one("lexical/vector_index_dimensions", index_name=name)
        if row and row["dimensions"] != dimensions:
            graph.run("pipeline/drop_vector_index", index_name=name)
    return {"chunks": embed_chunks(graph, embedders.chunks, on_progress),
            "extracts": _extracts(graph, embedders.extracts, on_progress),
            "communities": _communities(graph, embedders.chunks, on_progress)}


def _extracts(graph: Graph, embedder, on_progress: Callable[[int], None]) -> int:
    done = 0
    while rows := graph.run("analysis/extracts_to_embed", model=embedder.name, limit=EXTRACT_BATCH):
        vectors = embedder.embed([row["text"] for row in rows])
        payload = [{"id": row["id"], "embedding": vector.tolist()} for row, vector in zip(rows, vectors)]
        graph.write_transaction(lambda tx: (tx.run("analysis/write_extract_embeddings", rows=payload,
                                                   model=embedder.name),
                                            tx.run("selection/inputs_changed", what="extracts re-embedded")))
        done += len(rows)
        on_progress(len(rows))
    return done


def _communities(graph: Graph, embedder, on_progress: Callable[[int], None]) -> int:
    done, index_ready = 0, False
    while rows := graph.run("kg/communities_to_embed", model=embedder.name, limit=COMMUNITY_BATCH):
        vectors = embedder.embed([row["text"] for row in rows])
        if not index_ready:
            graph.run("kg/community_vector_index", dimensions=int(vectors.shape[1]))
            index_ready = True
        write_sentences(graph, embedder, rows)  # first: a run stopped here redoes this batch whole
        graph.run("kg/write_community_embeddings", model=embedder.name,
                  rows=[{"id": row["id"], "embedding": vector.tolist()} for row, vector in zip(rows, vectors)])
        done += len(rows)
        on_progress(len(rows))
    return done
