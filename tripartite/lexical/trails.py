"""A chunk's heading trail, "Document > Section > Subsection", the document's title once: how
every prompt names a reference, and what a chunk's second vector reads before its text."""
from __future__ import annotations

from tripartite.infra.quoting import quote
from tripartite.infra.tokens import count_tokens


def path_below_title(ref: dict) -> list[str]:
    """A reference's section path without the document's title (its top heading often repeats it)."""
    path = list(ref.get("section_path") or [])
    return path[1:] if path and path[0] == ref.get("document") else path


def references_block(references: list[dict]) -> list[str]:
    """The lines of a prompt's references: each document's title once, then the chunks cited from
    it, "[n] Section (chunk k)" (documents in the order first cited). With the title on every line,
    a one-document corpus's long title had been a tenth of a search prompt's tokens."""
    by_document: dict[str, list[dict]] = {}
    for ref in references:
        by_document.setdefault(ref.get("document") or "", []).append(ref)
    lines = []
    for refs in by_document.values():
        lines += [document_heading(refs[0]), *(reference_entry(ref["n"], ref) for ref in refs)]
    return lines


def document_heading(ref: dict) -> str:
    """The line that names a document in a references block."""
    return f"{quote(ref.get('document') or '(untitled)')}:"


def reference_entry(n: int, ref: dict) -> str:
    """[n] Section (chunk k): one chunk under its document's heading, named by its own (innermost)
    section and k its place in the document (its id where the place is not known). The headings
    between are context the JSON forms keep (section_path); with the place, the entry is a unique
    address at a fraction of the whole trail's tokens."""
    where = ref.get("index") if ref.get("index") is not None else ref["chunk_id"]
    section = [quote(s) for s in path_below_title(ref)[-1:]]
    return " ".join([f"[{n}]", *section, f"(chunk {where})"])


def reference_cost(n: int, ref: dict, documents: set[str]) -> int:
    """The tokens the reference adds to a block that already names `documents` (its line, and its
    document's heading the first time), for a prompt that fills a budget piece by piece."""
    heading = 0 if (ref.get("document") or "") in documents else count_tokens(document_heading(ref)) + 1
    return count_tokens(reference_entry(n, ref)) + 1 + heading


def reference_trail(ref: dict) -> str:
    """Document > Section > ..., the document's title once."""
    return " > ".join([ref["document"] or "", *path_below_title(ref)])
