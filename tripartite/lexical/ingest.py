"""`tripartite ingest`: files -> parsed documents -> chunks -> Neo4j, skipping unchanged ones.

Each document is read and chunked completely before anything is written, so a file that
fails (bad encoding, broken PDF, too large) writes nothing. Documents are written in
batches, one transaction per batch.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from tripartite.infra.graph import Graph
from tripartite.infra.locks import run_lock, to_stderr
from tripartite.lexical.chunker import chunk_document, chunker_signature
from tripartite.lexical.model import DocumentRecords
from tripartite.lexical.ids import readable_ids, resolve_ids
from tripartite.lexical.readers import SUPPORTED, EmptyDocument, IngestError, discover, read_document, refuse_named
from tripartite.lexical.store import document_states, documents_by_path, write_documents

CHUNKS_PER_TRANSACTION = 5000


@dataclass
class IngestReport:
    ingested: list[dict] = field(default_factory=list)
    unchanged: list[dict] = field(default_factory=list)
    skipped: list[dict] = field(default_factory=list)   # unsupported types, empty files
    failed: list[dict] = field(default_factory=list)    # one-line errors, nothing written
    missing: list[str] = field(default_factory=list)
    renamed: list[dict] = field(default_factory=list)   # another source holds the readable id
    gone: list[dict] = field(default_factory=list)      # documents from the folders given whose file is gone
    hidden: list[str] = field(default_factory=list)     # dot-files and dot-folders under the folders given
    irregular: list[str] = field(default_factory=list)  # named pipes and the like under the folders given

    @property
    def chunks_written(self) -> int:
        return sum(d["chunks"] for d in self.ingested)

    def as_dict(self) -> dict:
        return {"ingested": self.ingested, "unchanged": self.unchanged, "skipped": self.skipped,
                "failed": self.failed, "missing": self.missing, "renamed": self.renamed, "gone": self.gone,
                "hidden": self.hidden, "irregular": self.irregular}


def document_ids(graph: Graph, files: list[Path], replace: bool = False) -> tuple[dict[Path, str], list[dict]]:
    """The id each file is stored under (see tripartite/lexical/ids.py), and the files whose
    readable id another source holds."""
    candidates = {str(f): i for f, i in readable_ids(files).items()}
    if not candidates:
        return {}, []
    by_path = documents_by_path(graph, list(candidates))
    by_id = document_states(graph, list(candidates.values()))
    resolution = resolve_ids(candidates, by_path, by_id, lambda path: hashlib.sha256(Path(path).read_bytes()).hexdigest(),
                             replace)
    for path, (stored, wanted) in resolution.stuck.items():
        raise IngestError(f"{path} is stored as {stored} (another file held {wanted} when it came); --replace "
                          f"does not rename a stored document: `tripartite documents remove {stored}`, then ingest "
                          "it again with --replace")
    renamed = [{"path": path, "id": resolution.ids[path], "taken_by": by_id[wanted]["path"], "wanted": wanted}
               for path, wanted in resolution.renamed.items()]
    return {Path(path): i for path, i in resolution.ids.items()}, renamed


LOCK, LOCK_COMMANDS = "ingest", "ingest or documents remove"  # one writer of the lexical graph at a time


def ingest_paths(graph: Graph, paths: list[str], counter, max_tokens: int, max_bytes: int,
                 on_file: Callable[[Path], None] = lambda p: None, replace: bool = False,
                 on_wait: Callable[[str], None] = to_stderr,
                 on_triplets_changed: Callable[[Graph], object] = lambda graph: None) -> IngestReport:
    """Ingest files and folders. A source keeps the id it was stored under; a new source whose
    readable id another source holds gets a suffixed id, unless `replace` hands it that id. A
    second ingest waits for the first, then finds its files unchanged: no file is read into the
    graph twice. `on_triplets_changed` runs when a replaced document's old chunks left the
    triplet graph (its entities are described again from the chunks that remain)."""
    with run_lock(graph, LOCK, LOCK_COMMANDS, on_wait):
        report = _ingest(graph, paths, counter, max_tokens, max_bytes, on_file, replace)
        if any(item["replaced"] for item in report.ingested):
            on_triplets_changed(graph)
        return report


def _ingest(graph: Graph, paths: list[str], counter, max_tokens: int, max_bytes: int,
            on_file: Callable[[Path], None], replace: bool) -> IngestReport:
    report = IngestReport()
    found = discover(paths)
    refuse_named(found, paths, "documents are read from Markdown, text or PDF", SUPPORTED)
    report.missing = [str(p) for p in found.missing]
    report.hidden = [str(p) for p in found.hidden]
    report.irregular = [str(p) for p in found.irregular]
    report.skipped = [{"path": str(p), "reason": f"unsupported file type {p.suffix or '(none)'}"}
                      for p in found.unsupported]
    ids, report.renamed = document_ids(graph, found.supported, replace)
    states = document_states(graph, list(ids.values())) if ids else {}
    batch: list[DocumentRecords] = []
    batch_chunks = 0

    def flush() -> None:
        nonlocal batch, batch_chunks
        try:
            write_documents(graph, batch)
        except IngestError as exc:  # too big for one transaction: reported, nothing written
            report.failed.extend({"path": r.document.path, "error": str(exc)} for r in batch)
            batch, batch_chunks = [], 0
            return
        for records in batch:
            state = states.get(records.document.id)
            report.ingested.append({"id": records.document.id, "path": records.document.path,
                                    "sections": len(records.sections), "chunks": len(records.chunks),
                                    "replaced": state is not None,
                                    "rechunked": f"{state['chunker']} -> {records.chunker}"
                                                 if _same_file(state, records.document) else None,
                                    "front_matter": list(records.document.front_matter)})
        batch, batch_chunks = [], 0

    for path in found.supported:
        on_file(path)
        document_id = ids[path]
        try:
            parsed = read_document(path, document_id, max_bytes)
        except EmptyDocument as exc:
            reason = str(exc).split(": ", 1)[-1]
            if document_id in states:  # emptied since: its earlier text would go on being quoted unannounced
                reason += (f"; the graph still holds its earlier text as document {document_id!r}: "
                           f"`tripartite documents remove {document_id}` removes it")
            report.skipped.append({"path": str(path), "reason": reason})
            continue
        except IngestError as exc:
            report.failed.append({"path": str(path), "error": str(exc)})
            continue
        state = states.get(document_id)
        signature = chunker_signature(counter, max_tokens, parsed)
        if _same_file(state, parsed) and state["chunker"] == signature:
            report.unchanged.append({"id": document_id, "path": str(path)})
            continue
        records = chunk_document(parsed, counter, max_tokens)
        if batch and batch_chunks + len(records.chunks) > CHUNKS_PER_TRANSACTION:
            flush()  # a big document gets a transaction of its own
        batch.append(records)
        batch_chunks += len(records.chunks)
        if batch_chunks >= CHUNKS_PER_TRANSACTION:
            flush()
    flush()
    report.gone = gone_sources(graph, paths)
    return report


def _same_file(state: dict | None, document) -> bool:
    """Whether the stored document came from this very file, as it is (same content, same path)."""
    return bool(state) and state["content_hash"] == document.content_hash and state["path"] == document.path


def gone_sources(graph: Graph, paths: list[str]) -> list[dict]:
    """Documents ingested from under the folders given whose file no longer exists (deleted,
    or renamed and ingested again under its new name): prompts would go on quoting them."""
    folders = [Path(raw).expanduser().resolve() for raw in paths if Path(raw).expanduser().is_dir()]
    if not folders:
        return []
    return [{"id": row["id"], "path": row["path"]} for row in graph.run("lexical/list_documents")
            if row["path"] and any(Path(row["path"]).is_relative_to(f) for f in folders)
            and not Path(row["path"]).exists()]
