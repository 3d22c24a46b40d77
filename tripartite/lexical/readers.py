"""Reading source files into ParsedDocuments: Markdown, plain text and PDF.

Every problem is an IngestError whose message names the file and the fix; nothing is
written for a file that fails here.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from tripartite.infra.folders import not_regular
from tripartite.lexical.markdown import front_matter_keys, markdown_document
from tripartite.lexical.model import EmptyDocument, IngestError, ParsedDocument, ParsedSection
from tripartite.lexical.pdf import pdf_sections

MARKDOWN = {".md", ".markdown", ".mdown", ".mkd"}
TEXT = {".txt", ".text"}
PDF = {".pdf"}
SUPPORTED = MARKDOWN | TEXT | PDF
DEFAULT_MAX_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class Discovered:
    supported: list[Path]
    unsupported: list[Path]
    missing: list[Path]
    hidden: list[Path] = field(default_factory=list)  # dot-files and dot-folders found under a folder given
    special: list[tuple[Path, str]] = field(default_factory=list)  # paths given that are no file or folder, and what
    irregular: list[Path] = field(default_factory=list)  # named pipes, sockets, devices found under a folder given


def refuse_named(found: Discovered, paths: Iterable[str | Path], read_from: str, kinds: set[str]) -> None:
    """A path named on the command line is meant to be read: one that is no file or folder (a
    FIFO, never opened: reading it would wait forever) or a file of a type not read is refused
    in one line, before anything is written. Such files inside a folder given are skipped."""
    if found.special:
        path, kind = found.special[0]
        raise IngestError(f"{path}: not a regular file ({kind}); name a file or a folder")
    named = {Path(p).expanduser().resolve() for p in paths}
    refused = [path for path in found.unsupported if path in named]
    if refused:
        raise IngestError(f"{refused[0]}: {read_from} files ({', '.join(sorted(kinds))}); convert it")


def hidden_line(hidden: list[Path]) -> str | None:
    """One line naming what discovery left out for starting with a dot, or None."""
    if not hidden:
        return None
    shown = ", ".join(str(p) for p in hidden[:3]) + (f" and {len(hidden) - 3} more" if len(hidden) > 3 else "")
    return (f"skipped   {len(hidden)} hidden {'entry' if len(hidden) == 1 else 'entries'} (names starting "
            f"with '.'): {shown}; name a hidden file itself to read it")


def irregular_line(irregular: list[str]) -> str | None:
    """One line naming the named pipes, sockets and devices discovery left out, or None."""
    if not irregular:
        return None
    shown = ", ".join(str(p) for p in irregular[:3]) + (f" and {len(irregular) - 3} more" if len(irregular) > 3 else "")
    return f"skipped   {len(irregular)} not a regular file (a named pipe, socket or device): {shown}"


def discover(paths: Iterable[str | Path], kinds: set[str] = SUPPORTED) -> Discovered:
    """Files of the given suffixes from files and folders (recursively, hidden entries skipped)."""
    supported: list[Path] = []
    unsupported: list[Path] = []
    missing: list[Path] = []
    hidden: dict[Path, None] = {}
    special: list[tuple[Path, str]] = []
    irregular: list[Path] = []
    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_dir():
            candidates = []
            for p in sorted(path.rglob("*")):
                parts = p.relative_to(path).parts
                dotted = next((i for i, part in enumerate(parts) if part.startswith(".")), None)
                if dotted is not None:  # the outermost hidden entry stands for what lies inside it
                    hidden.setdefault(path.joinpath(*parts[:dotted + 1]), None)
                elif p.is_file():
                    candidates.append(p)
                elif not_regular(p):  # never opened: reading a named pipe waits for a writer
                    irregular.append(p)
        elif path.is_file():
            candidates = [path]
        elif kind := not_regular(path):  # a named pipe: never opened, since reading it waits for a writer
            special.append((path, kind))
            continue
        else:
            missing.append(path)
            continue
        for file in candidates:
            (supported if file.suffix.lower() in kinds else unsupported).append(file.resolve())
    return Discovered(list(dict.fromkeys(supported)), unsupported, missing, list(hidden), special, irregular)


def decode_text(path: Path, data: bytes) -> str:
    if b"\x00" in data[:8192]:
        raise IngestError(f"{path}: binary file, not text; convert it to Markdown, text or PDF")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise IngestError(f"{path}: not UTF-8 (invalid byte 0x{data[exc.start]:02x} at offset {exc.start}); "
                          "convert it, e.g. iconv -f latin1 -t utf-8") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_document(path: Path, document_id: str, max_bytes: int = DEFAULT_MAX_BYTES) -> ParsedDocument:
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise IngestError(f"{path}: file not found") from None
    if size > max_bytes:
        raise IngestError(f"{path}: {size / 1e6:.1f} MB is above the {max_bytes / 1e6:.0f} MB limit; "
                          "split the file or raise --max-mb")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise IngestError(f"{path}: cannot be read ({exc.strerror}); check its permissions") from None
    content_hash = hashlib.sha256(data).hexdigest()
    suffix = path.suffix.lower()
    front_matter: tuple[str, ...] = ()
    if suffix in PDF:
        title, sections = pdf_sections(path, data)
        fmt = "pdf"
    else:
        text = decode_text(path, data)
        if suffix in MARKDOWN:
            title, sections = markdown_document(text, path.stem)
            front_matter = front_matter_keys(text)
            fmt = "markdown"
        else:
            title = path.stem
            body = text.strip()
            sections = [ParsedSection(title, 1, (title,), None, body)] if body else []
            fmt = "text"
    if not any(s.body.strip() for s in sections):
        what = "only headings, no text under them" if sections else "empty file"
        raise EmptyDocument(f"{path}: no text to ingest ({what})")
    return ParsedDocument(document_id, title, str(path), fmt, content_hash, size, tuple(sections), front_matter)
