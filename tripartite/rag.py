"""The baseline the paper compares against: plain vector RAG over the same chunks, with the
object's text as the query, through neo4j-graphrag's VectorRetriever."""
from __future__ import annotations

import neo4j

from tripartite.embeddings import as_graphrag_embedder
from tripartite.lexical.embed import INDEX_NAME
from tripartite.tokens import count_tokens


def retrieve(driver: neo4j.Driver, database: str, embedder, query: str, top_k: int | None,
             min_score: float | None) -> list[dict]:
    """Chunks by similarity to `query`: the top k, or all with score >= min_score.
    The score is the vector index's, (1 + cos) / 2 in [0, 1]."""
    from neo4j_graphrag.retrievers import VectorRetriever
    from neo4j_graphrag.types import RetrieverResultItem

    def formatter(record: neo4j.Record) -> RetrieverResultItem:
        node = record["node"]
        return RetrieverResultItem(content=node["text"], metadata={"chunk_id": node["id"], "score": record["score"]})

    retriever = VectorRetriever(driver, INDEX_NAME, embedder=as_graphrag_embedder(embedder),
                                return_properties=["id", "text"], result_formatter=formatter,
                                neo4j_database=database)
    if top_k is None:
        records, _, _ = driver.execute_query("MATCH (c:Chunk) WHERE c.embedding IS NOT NULL RETURN count(c) AS n",
                                             database_=database)
        top_k = max(1, records[0]["n"])
    # The vector index is approximate (HNSW): a small k can miss a chunk a larger one finds,
    # and two builds of the index can rank differently. A metadata filter makes the retriever
    # rank exactly, over the chunks this model embedded, so the baseline gets its true best k.
    items = retriever.search(query_text=query, top_k=top_k, filters={"embedding_model": embedder.name}).items
    chunks = [{"chunk_id": i.metadata["chunk_id"], "score": i.metadata["score"], "text": i.content} for i in items]
    if min_score is not None:
        chunks = [c for c in chunks if c["score"] >= min_score]
    return chunks


def rag_prompt(object_id: str, object_text: str, chunks: list[dict], question: str) -> dict:
    lines = [f"Question: {question}", "", f"Object {object_id}:", object_text.strip(), "", "Retrieved passages:"]
    lines += [f"[{n}] {c['text']}" for n, c in enumerate(chunks, start=1)]
    prompt = "\n".join(lines).rstrip() + "\n"
    return {"object_id": object_id, "tokens": count_tokens(prompt), "prompt": prompt, "chunks": chunks}
