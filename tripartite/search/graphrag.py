"""neo4j-graphrag's own vector retrievers on the project's chunk index, with what a prompt
needs of a chunk and nothing else: its text and where it comes from, never its two vectors
(`embedding`, `context_embedding`) or the bookkeeping the pipeline keeps on it (which
concepts analysed it, the triplet graph's fingerprint, ...). docs/neo4j-graphrag.md shows them
in use:

    VectorRetriever(driver, CHUNK_INDEX, embedder(), return_properties=CHUNK_PROPERTIES,
                    result_formatter=chunk_item)
    VectorCypherRetriever(driver, CHUNK_INDEX, CHUNK_CONTEXT_QUERY, embedder(), result_formatter=chunk_item)

The first gives a chunk's text and id (what `tripartite trace` takes); the second, which
walks from the chunk to its document and section, adds the reference every prompt of the
project cites ("Document > Section > Subsection")."""
from __future__ import annotations

from typing import TYPE_CHECKING

from neo4j_graphrag.types import RetrieverResultItem

from tripartite.infra.graphrag_embedder import GraphRAGEmbedder
from tripartite.lexical.embed import INDEX_NAME

if TYPE_CHECKING:
    import neo4j

    from tripartite.infra.config import Settings

CHUNK_INDEX = INDEX_NAME  # the vector index over Chunk.embedding ("chunk_embedding")

# VectorRetriever's return_properties: the chunk's id and text.
CHUNK_PROPERTIES = ["id", "text"]

# VectorCypherRetriever's retrieval_query: `node` and `score` are the retriever's; the
# reference is Document title > section path, the title once (as lexical/trails.py writes it).
CHUNK_CONTEXT_QUERY = """
MATCH (node)-[:FROM_DOCUMENT]->(d:Document)
OPTIONAL MATCH (s:Section {id: node.section_id})
WITH node, score, coalesce(d.title, d.id) AS title, coalesce(s.path, []) AS path
RETURN node.id AS chunk_id, node.text AS text, score,
       reduce(trail = title, heading IN CASE WHEN path[0] = title THEN path[1..] ELSE path END
              | trail + ' > ' + heading) AS reference
"""


def chunk_item(record: neo4j.Record) -> RetrieverResultItem:
    """A chunk as the LLM reads it: its reference (or its id) on a line, then its text. Works
    for both retrievers above (VectorRetriever's `node` map, VectorCypherRetriever's columns)."""
    row = record.get("node") or record
    chunk_id = row.get("id") or row.get("chunk_id")
    reference = record.get("reference")
    heading = f"[{reference}] (chunk {chunk_id})" if reference else f"[chunk {chunk_id}]"
    return RetrieverResultItem(content=f"{heading}\n{row.get('text')}",
                               metadata={"chunk_id": chunk_id, "reference": reference, "score": record.get("score")})


def embedder(settings: Settings | None = None) -> GraphRAGEmbedder:
    """The embedder the chunks were embedded with ([embeddings] of the settings, tripartite.toml
    and the environment when none are given), in neo4j-graphrag's Embedder type."""
    from tripartite.infra.config import load_settings
    from tripartite.infra.embeddings import make_embedder

    return GraphRAGEmbedder(make_embedder(settings or load_settings()))


def chunk_filter(query_embedder: GraphRAGEmbedder) -> dict:
    """A search's `filters` keeping the chunks this embedder's model embedded: needed only
    while a graph holds vectors of two models (after a change of model, before `tripartite
    embed`). It also makes the search exact (every such chunk compared, not the index's
    approximate neighbours)."""
    return {"embedding_model": query_embedder.model}
