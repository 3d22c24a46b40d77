"""Writing parsed documents to Neo4j: nodes from Python in UNWIND batches, edges by
cypher/lexical/structure_edges.cypher, all of a batch of documents in one transaction."""
from __future__ import annotations

from dataclasses import asdict, replace
from typing import Sequence

import neo4j

from tripartite import scripts
from tripartite.lexical.model import DocumentRecords

ROWS_PER_STATEMENT = 5000
# Documents with more chunks than this are staged over several transactions and switched
# in by a small one, so a 50 MB file does not need a transaction larger than the server allows.
STAGED_ABOVE_CHUNKS = 20000
STAGED_PREFIX = "~staged~"
RETIRED_PREFIX = "~retired~"


def _document_row(records: DocumentRecords) -> dict:
    doc = records.document
    return {"id": doc.id, "title": doc.title, "path": doc.path, "format": doc.format,
            "content_hash": doc.content_hash, "chunker": records.chunker, "size_bytes": doc.size_bytes,
            "section_count": len(records.sections), "chunk_count": len(records.chunks)}


def _write_batch(tx: neo4j.ManagedTransaction, batch: Sequence[DocumentRecords]) -> None:
    ids = [r.document.id for r in batch]
    scripts.run(tx, "lexical/delete_document_content", document_ids=ids)
    for records in batch:
        scripts.run(tx, "lexical/write_document", document=_document_row(records))
    sections = [asdict(s) for r in batch for s in r.sections]
    for start in range(0, len(sections), ROWS_PER_STATEMENT):
        scripts.run(tx, "lexical/write_sections", sections=sections[start:start + ROWS_PER_STATEMENT])
    chunks = [asdict(c) for r in batch for c in r.chunks]
    for start in range(0, len(chunks), ROWS_PER_STATEMENT):
        scripts.run(tx, "lexical/write_chunks", chunks=chunks[start:start + ROWS_PER_STATEMENT])
    scripts.run(tx, "lexical/structure_edges", document_ids=ids)


def write_documents(driver: neo4j.Driver, database: str, batch: Sequence[DocumentRecords]) -> None:
    """Replace the given documents in one transaction: all of them are written, or none."""
    if not batch:
        return
    with driver.session(database=database) as session:
        session.execute_write(_write_batch, batch)


def _prefixed(records: DocumentRecords, prefix: str) -> DocumentRecords:
    doc = replace(records.document, id=prefix + records.document.id)
    sections = [replace(s, id=prefix + s.id, document_id=doc.id,
                        parent_id=prefix + s.parent_id if s.parent_id else None) for s in records.sections]
    chunks = [replace(c, id=prefix + c.id, document_id=doc.id, section_id=prefix + c.section_id)
              for c in records.chunks]
    return DocumentRecords(doc, records.chunker, sections, chunks)


def write_large_document(driver: neo4j.Driver, database: str, records: DocumentRecords) -> None:
    """Replace one big document atomically for readers: stage the new version in many
    transactions, switch versions in one small transaction, then purge the old version."""
    document_id = records.document.id
    for leftover in (STAGED_PREFIX + document_id, RETIRED_PREFIX + document_id):  # from an interrupted run
        scripts.run_autocommit(driver, database, "lexical/purge_document", document_id=leftover)
    staged = _prefixed(records, STAGED_PREFIX)
    with driver.session(database=database) as session:
        session.execute_write(lambda tx: scripts.run(tx, "lexical/write_document", document=_document_row(staged)))
        sections = [asdict(s) for s in staged.sections]
        for start in range(0, len(sections), ROWS_PER_STATEMENT):
            session.execute_write(lambda tx: scripts.run(tx, "lexical/write_sections",
                                                         sections=sections[start:start + ROWS_PER_STATEMENT]))
        chunks = [asdict(c) for c in staged.chunks]
        for start in range(0, len(chunks), ROWS_PER_STATEMENT):
            session.execute_write(lambda tx: scripts.run(tx, "lexical/write_chunks",
                                                         chunks=chunks[start:start + ROWS_PER_STATEMENT]))
        for statement in scripts.load("lexical/structure_edges"):  # one transaction per edge type
            session.execute_write(lambda tx: tx.run(statement.text, document_ids=[staged.document.id]).consume())
        session.execute_write(lambda tx: scripts.run(tx, "lexical/promote_staged_document", document_id=document_id,
                                                     staged_prefix=STAGED_PREFIX, retired_prefix=RETIRED_PREFIX))
    scripts.run_autocommit(driver, database, "lexical/purge_document", document_id=RETIRED_PREFIX + document_id)


def document_states(driver: neo4j.Driver, database: str, ids: list[str]) -> dict[str, dict]:
    rows = scripts.query(driver, database, "lexical/document_state", document_ids=ids)
    return {row["id"]: row for row in rows}


def list_documents(driver: neo4j.Driver, database: str) -> list[dict]:
    return scripts.query(driver, database, "lexical/list_documents")


def remove_document(driver: neo4j.Driver, database: str, document_id: str) -> int | None:
    """Remove a document and all it carries; None if there was no such document."""
    for leftover in (STAGED_PREFIX + document_id, RETIRED_PREFIX + document_id):
        scripts.run_autocommit(driver, database, "lexical/purge_document", document_id=leftover)
    rows = scripts.write(driver, database, "lexical/remove_document", document_id=document_id)
    return rows[0]["chunks"] if rows else None


def trace_chunk(driver: neo4j.Driver, database: str, chunk_id: str) -> dict | None:
    rows = scripts.query(driver, database, "lexical/trace_chunk", chunk_id=chunk_id)
    return rows[0] if rows else None
