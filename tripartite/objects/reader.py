"""Reading an object under investigation (a patient anamnesis, a fault report) from a file.

An object's id is its file name without extension (Unicode letters kept; see
tripartite/lexical/ids.py for how a stored source keeps its id); its text is the file's text.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from tripartite.infra.tokens import count_tokens
from tripartite.lexical.markdown import first_heading
from tripartite.lexical.ids import slugify
from tripartite.lexical.model import IngestError
from tripartite.lexical.readers import decode_text
from tripartite.ontology.reader import ID

SUPPORTED = {".md", ".markdown", ".txt", ".text"}
MAX_BYTES = 5 * 1024 * 1024
# An object's whole text goes into one LLM prompt each time it is analysed: a case (one
# anamnesis, one fault report) is a few thousand tokens; 32,000 leaves a 128k-token model room
# for the concepts and the answer. A bigger file is most likely many cases in one.
MAX_TOKENS = 32_000


def object_kind(value: str) -> str:
    """An object kind as given (stripped), refused when it is no id a plugin could name."""
    kind = value.strip()
    if not ID.match(kind):  # the rule of a plugin's object_kinds ids
        raise IngestError(f"object kind {value!r} is not valid; use letters, digits, '_', '-' or '.', "
                          "e.g. anamnesis or fault-report")
    return kind


@dataclass(frozen=True)
class ObjectRecord:
    id: str
    kind: str
    title: str
    text: str
    path: str
    content_hash: str


def read_object(path: Path, kind: str, max_tokens: int = MAX_TOKENS) -> ObjectRecord:
    """The object of one file, refused (IngestError) when it is no text or more than `max_tokens`."""
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
    tokens = count_tokens(text)
    if tokens > max_tokens:
        raise IngestError(f"{path}: {tokens:,} tokens is more than one object may hold ({max_tokens:,}; its whole text "
                          "goes into every LLM prompt that analyses it); split it into one file per case, or raise "
                          "the limit with `tripartite objects add --max-tokens`")
    return ObjectRecord(slugify(path.stem), kind, first_heading(text) or path.stem, text, str(path.resolve()),
                        hashlib.sha256(f"{kind}\n{text}".encode()).hexdigest())
