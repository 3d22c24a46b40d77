"""Objects under investigation (patient anamneses, fault reports): reading and storing them.

An object's id is its file name without extension; its text is the file's text. Re-adding
an unchanged object changes nothing; a changed one loses what was derived from its old text.
"""
from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass
from pathlib import Path

import neo4j

from tripartite import scripts
from tripartite.lexical.markdown import first_heading
from tripartite.lexical.model import slugify
from tripartite.lexical.readers import IngestError, decode_text

SUPPORTED = {".md", ".markdown", ".txt", ".text"}
MAX_BYTES = 5 * 1024 * 1024


@dataclass(frozen=True)
class ObjectRecord:
    id: str
    kind: str
    title: str
    text: str
    path: str
    content_hash: str


def read_object(path: Path, kind: str) -> ObjectRecord:
    if path.suffix.lower() not in SUPPORTED:
        raise IngestError(f"{path}: objects are read from Markdown or text files; convert it")
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise IngestError(f"{path}: file not found") from None
    if len(data) > MAX_BYTES:
        raise IngestError(f"{path}: {len(data) / 1e6:.1f} MB is too large for one object (limit 5 MB); "
                          "an object is one case, such as one anamnesis")
    text = decode_text(path, data).strip()
    if not text:
        raise IngestError(f"{path}: empty object; nothing to add")
    return ObjectRecord(slugify(path.stem), kind, first_heading(text) or path.stem, text, str(path.resolve()),
                        hashlib.sha256(f"{kind}\n{text}".encode()).hexdigest())


def add_objects(driver: neo4j.Driver, database: str, records: list[ObjectRecord]) -> dict[str, list[str]]:
    """Store objects in one transaction; report which were added, changed or unchanged."""
    ids = [r.id for r in records]
    if len(set(ids)) != len(ids):
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        raise IngestError(f"two files give the same object id {', '.join(dupes)}; rename one of them")
    state = {row["id"]: row for row in scripts.query(driver, database, "objects/object_state", object_ids=ids)}
    report: dict[str, list[str]] = {"added": [], "changed": [], "unchanged": []}
    changed = []
    for record in records:
        old = state.get(record.id)
        if old and old["content_hash"] == record.content_hash:
            report["unchanged"].append(record.id)
            continue
        report["changed" if old else "added"].append(record.id)
        changed.append(asdict(record))
    if changed:
        scripts.write(driver, database, "objects/write_objects", objects=changed)
    return report


def list_objects(driver: neo4j.Driver, database: str, kind: str | None = None) -> list[dict]:
    return scripts.query(driver, database, "objects/list_objects", kind=kind)
