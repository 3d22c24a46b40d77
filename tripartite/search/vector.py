"""Vector RAG, the baseline the paper compares against: chunks ranked by similarity to a
query (for an object, its text), through neo4j-graphrag's VectorRetriever."""
from __future__ import annotations

import warnings
from contextlib import contextmanager
from typing import TYPE_CHECKING, Iterator

from tripartite.ontology.plugins import question_or_default
from tripartite.infra.question_vectors import question_readings
from tripartite.infra.errors import TripartiteError
from tripartite.infra.graph import Graph
from tripartite.infra.quoting import quote
from tripartite.infra.tokens import count_tokens
from tripartite.lexical.embed import INDEX_NAME
from tripartite.objects.store import object_text

if TYPE_CHECKING:
    import neo4j

# neo4j-graphrag 1.x warns on every vector search that its result rows' default `id` column
# (the element id) goes away in 2.0. Nothing here reads that column: the formatter takes the
# chunk's own `id` property from the node, so the warning says nothing about this project.
GRAPHRAG_ID_DEPRECATION = "The default returned 'id' field in the search results will be removed in version 2.0"


@contextmanager
def quiet_graphrag_id_deprecation() -> Iterator[None]:
    """A neo4j-graphrag vector search without that one warning (see above)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=GRAPHRAG_ID_DEPRECATION, category=DeprecationWarning)
        yield


def retrieve(graph: Graph, embedder, query: str, top_k: int | None, min_score: float | None) -> list[dict]:
    """Chunks by similarity to `query`: the top k, or all with score >= min_score (top_k and
    min_score None: every chunk, ranked). The score is the vector index's, (1 + cos) / 2, with cos
    the chunk's closeness to the question's readings (a chunk of another language than the
    query's: the cosine of its model's reading of the query, times CROSS_LANGUAGE_WEIGHT)."""
    from neo4j_graphrag.retrievers import VectorRetriever
    from neo4j_graphrag.types import RetrieverResultItem

    def formatter(record: neo4j.Record) -> RetrieverResultItem:
        node = record["node"]
        return RetrieverResultItem(content=node["text"], metadata={"chunk_id": node["id"], "score": record["score"]})

    # Given the question's vectors (below), the retriever needs no embedder of its own.
    retriever = VectorRetriever(graph.driver, INDEX_NAME, return_properties=["id", "text"], result_formatter=formatter,
                                neo4j_database=graph.database)
    embedded = graph.run("search/embedded_chunk_count", model=embedder.name)[0]["chunks"]
    if not embedded:
        from tripartite.lexical.embed import pending_line

        stale = pending_line(graph, embedder.name)
        if stale:  # chunks there are, but another model's vectors (or none): ranking them would find nothing
            raise TripartiteError(f"{stale} (`--dry-run` first says how much): vector RAG compares only vectors of "
                                  "one model")
    if top_k is None:
        top_k = max(1, embedded)
    # The vector index is approximate (HNSW): a small k can miss a chunk a larger one finds,
    # and two builds of the index can rank differently. A metadata filter makes the retriever
    # rank exactly, over the chunks this model embedded, so the baseline gets its true best k.
    # Each reading of the question (infra/question_vectors.py) meets the chunks of its
    # model's language; a chunk's closeness is its own reading's weighted cosine. A chunk of
    # another model's block scores exactly 0.5 (cosine 0) under a reading: not that reading's,
    # so such a hit is set aside, and each reading is asked for twice k, lest they crowd out its
    # own chunks; with one reading (or every chunk asked for) they are ranked at 0.5 as before.
    readings = question_readings(embedder, query)
    asked = top_k if len(readings) == 1 else min(2 * top_k, max(1, embedded))
    found: dict[str, dict] = {}
    elsewhere: dict[str, dict] = {}
    for vector, weight in readings:
        with quiet_graphrag_id_deprecation():
            items = retriever.search(query_vector=vector.tolist(), top_k=asked,
                                     filters={"embedding_model": embedder.name}).items
        for i in items:
            chunk = {"chunk_id": i.metadata["chunk_id"], "score": i.metadata["score"], "text": i.content}
            if chunk["score"] == 0.5 and len(readings) > 1:
                elsewhere.setdefault(chunk["chunk_id"], chunk)
            else:
                if weight != 1.0:
                    chunk["score"] = (1 + weight * (2 * chunk["score"] - 1)) / 2
                found[chunk["chunk_id"]] = chunk
    if len(readings) > 1 and asked >= embedded:  # every chunk was asked for: those no reading read rank at 0.5
        found.update({k: c for k, c in elsewhere.items() if k not in found})
    chunks = sorted(found.values(), key=lambda c: (-c["score"], c["chunk_id"]))[:top_k]
    if min_score is not None:
        chunks = [c for c in chunks if c["score"] >= min_score]
    return chunks


def rag_prompt(object_id: str, object_text: str, chunks: list[dict], question: str) -> dict:
    lines = [f"Question: {quote(question)}", "", f"Object {object_id}:", quote(object_text.strip()), "",
             "Retrieved passages:"]
    lines += [f"[{n}] {quote(c['text'])}" for n, c in enumerate(chunks, start=1)]
    prompt = "\n".join(lines).rstrip() + "\n"
    return {"object_id": object_id, "tokens": count_tokens(prompt), "prompt": prompt, "chunks": chunks}


def object_rag_prompt(graph: Graph, embedder, object_id: str, top_k: int | None, min_score: float | None,
                      question: str | None = None, max_tokens: int | None = None) -> dict:
    """The RAG prompt for one object: its text is the query (all-MiniLM-L6-v2 reads only its
    first 256 word pieces). With `max_tokens`, the most top-ranked chunks whose prompt fits
    (instead of the top k)."""
    found = object_text(graph, object_id)
    if found is None:
        raise TripartiteError(f"no object with id {object_id!r}; see `tripartite objects list`")
    asked = question_or_default(question, found["question"])
    if max_tokens is None:
        return rag_prompt(object_id, found["text"], retrieve(graph, embedder, found["text"], top_k, min_score), asked)
    ranked = retrieve(graph, embedder, found["text"], max_tokens // 50 + 5, min_score)  # chunks are 50+ tokens
    return rag_prompt(object_id, found["text"], ranked[:fitting(object_id, found["text"], ranked, asked, max_tokens)],
                      asked)


def fitting(object_id: str, text: str, ranked: list[dict], question: str, budget: int) -> int:
    """How many of the top-ranked chunks an object's RAG prompt holds within `budget` tokens."""
    k = 0
    while k < len(ranked) and rag_prompt(object_id, text, ranked[:k + 1], question)["tokens"] <= budget:
        k += 1
    return k


def question_rag_prompt(graph: Graph, embedder, question: str, max_tokens: int | None = None,
                        top_k: int | None = None) -> dict:
    """Vector RAG for a free-text question, in search's shape: the chunks closest to it, the
    top k, or as many as fit in `max_tokens` (the whole prompt, references included)."""
    from tripartite.search.layout import SearchPrompt

    if not question.strip():
        raise TripartiteError("the question is empty; ask something")
    # A budget fills with at most one chunk per 100 tokens (chunks are ~200 MiniLM tokens).
    ranked = retrieve(graph, embedder, question, top_k if max_tokens is None else max_tokens // 100 + 5, None)
    trails = {r["chunk_id"]: r for r in graph.run("search/chunk_trails", chunk_ids=[c["chunk_id"] for c in ranked])}
    prompt = SearchPrompt(question, max_tokens or 10**9, "Answer the question from the retrieved passages below; "
                          "cite the passages you use by their numbers in brackets.")
    for chunk in ranked[:top_k] if max_tokens is None else ranked:
        if prompt.add_source({**trails[chunk["chunk_id"]], "text": chunk["text"]}) is None:
            break
    text = prompt.text()
    tokens = count_tokens(text)
    # With one model per language, every score 0.5 (a cosine of exactly 0) means the question's
    # readings met no passage (a Chinese question, English passages: two models' blocks), so the
    # passages' order says nothing.
    unmet = ("no passage is close to the question: none is in a language its reading can meet (each language "
             "is read by its own model); hybrid search (`tripartite search hybrid`) also looks its words up in "
             "the other language"
             if ranked and getattr(embedder, "members", None) and all(c["score"] == 0.5 for c in ranked) else "")
    return {"mode": "rag", "question": question, "tokens": tokens, "total_tokens": tokens, "prompt": text,
            "references": prompt.references(), "material": prompt.material(), "note": unmet}
