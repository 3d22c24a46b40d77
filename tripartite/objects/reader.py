"""Reading an object under investigation (a patient anamnesis, a fault report) from a file.

An object's id is its file name without extension (Unicode letters kept; see
tripartite/lexical/ids.py for how a stored source keeps its id); its text is the file's text.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from tripartite.lexical.markdown import first_heading
from tripartite.lexical.ids import slugify
from tripartite.lexical.model import IngestError
from tripartite.lexical.readers import decode_text

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
