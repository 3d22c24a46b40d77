"""The lexical graph in Neo4j (cypher/lexical/): nodes written from Python in UNWIND
batches, every edge drawn by structure_edges.cypher, a batch of documents in one transaction."""
from __future__ import annotations

from dataclasses import fields
from typing import Callable, Sequence

from tripartite.infra.graph import Graph, ScriptTransaction
from tripartite.lexical.model import DocumentRecords, IngestError

ROWS_PER_STATEMENT = 5000


def _document_row(records: DocumentRecords) -> dict:
    doc = records.document
    return {"id": doc.id, "title": doc.title, "path": doc.path, "format": doc.format,
            "content_hash": doc.content_hash, "chunker": records.chunker, "size_bytes": doc.size_bytes,
            "section_count": len(records.sections), "chunk_count": len(records.chunks)}


def _rows(records: Sequence) -> list[dict]:
    """Flat records as the rows UNWIND takes. Not dataclasses.asdict, which copies each value
    deeply and took a sixth of a 50 MB document's ingest."""
    if not records:
        return []
    names = [f.name for f in fields(records[0])]
    return [{name: getattr(record, name) for name in names} for record in records]


def _write_batch(tx: ScriptTransaction, batch: Sequence[DocumentRecords]) -> None:
    ids = [r.document.id for r in batch]
    _forget_in_triplet_graph(tx, ids)
    tx.run("lexical/delete_document_content", document_ids=ids)
    for records in batch:
        tx.run("lexical/write_document", document=_document_row(records))
    sections = _rows([s for r in batch for s in r.sections])
    for start in range(0, len(sections), ROWS_PER_STATEMENT):
        tx.run("lexical/write_sections", sections=sections[start:start + ROWS_PER_STATEMENT])
    chunks = _rows([c for r in batch for c in r.chunks])
    for start in range(0, len(chunks), ROWS_PER_STATEMENT):
        tx.run("lexical/write_chunks", chunks=chunks[start:start + ROWS_PER_STATEMENT])
    tx.run("lexical/structure_edges", document_ids=ids)
    tx.run("selection/inputs_changed", what="documents")


def _forget_in_triplet_graph(tx: ScriptTransaction, document_ids: list[str]) -> None:
    """What the documents' chunks gave the triplet graph goes with them, and the community
    reports that may quote it are withdrawn (cypher/kg/); the caller then has the triplet
    graph's entities described again from the chunks that remain (kg.communities.describe)."""
    tx.run("kg/forget_documents", document_ids=document_ids)
    tx.run("kg/retract_reports")


def write_documents(graph: Graph, batch: Sequence[DocumentRecords]) -> None:
    """Replace the given documents in one transaction: all of them are written, or none."""
    if not batch:
        return
    from neo4j.exceptions import TransientError

    try:
        # One try: a batch too big for the server's transaction memory fails alike every time
        # (the driver would retry it for 30 s); anything else transient is one line, and a
        # second ingest writes only what is missing.
        graph.write_transaction(lambda tx: _write_batch(tx, batch), retry=False)
    except TransientError as exc:
        if "MemoryPoolOutOfMemoryError" not in (exc.code or ""):
            raise
        chunks = sum(len(r.chunks) for r in batch)
        names = ", ".join(r.document.path for r in batch)
        raise IngestError(f"{names}: {chunks} chunks do not fit in one Neo4j transaction (transaction memory limit); "
                          "nothing was written. Split the file, raise the server's heap "
                          "(dbms.memory.transaction.total.max), or remove the old version first with "
                          "`tripartite documents remove ID`") from None


def document_states(graph: Graph, ids: list[str]) -> dict[str, dict]:
    return {row["id"]: row for row in graph.run("lexical/document_state", document_ids=ids)}


def documents_by_path(graph: Graph, paths: list[str]) -> dict[str, str]:
    """path -> id of the documents stored from these source files."""
    return {row["path"]: row["id"] for row in graph.run("lexical/documents_by_path", paths=paths)}


def list_documents(graph: Graph) -> list[dict]:
    return graph.run("lexical/list_documents")


def remove_document(graph: Graph, document_id: str,
                    on_triplets_changed: Callable[[Graph], object] = lambda graph: None) -> int | None:
    """Remove a document and all it carries; None if there was no such document.

    Evidence and what the chunks gave the triplet graph go first, then chunks and sections in
    batches of small transactions (a big document does not fit in one), and the Document node
    last: if a removal is interrupted, the document is still listed and removing it again
    finishes the job. `on_triplets_changed` runs once the chunks are gone (the triplet graph's
    part: its entities described again from the chunks that remain)."""
    if not graph.run("lexical/document_state", document_ids=[document_id]):
        return None

    def first_step(tx: ScriptTransaction) -> list[dict]:
        tx.run("selection/inputs_changed", what="documents")
        _forget_in_triplet_graph(tx, [document_id])
        return tx.run("lexical/remove_document_evidence", document_id=document_id)

    counted = graph.write_transaction(first_step)
    graph.run("lexical/purge_document", document_id=document_id)
    on_triplets_changed(graph)
    return counted[0]["chunks"] if counted else 0


def trace_chunk(graph: Graph, chunk_id: str) -> dict | None:
    return graph.one("lexical/trace_chunk", chunk_id=chunk_id)
