"""A chunk's heading trail, "Document > Section > Subsection", the document's title once: how
every prompt names a reference, and what a chunk's second vector reads before its text."""
from __future__ import annotations


def path_below_title(ref: dict) -> list[str]:
    """A reference's section path without the document's title (its top heading often repeats it)."""
    path = list(ref.get("section_path") or [])
    return path[1:] if path and path[0] == ref.get("document") else path


def reference_label(ref: dict) -> str:
    """Document > Section, the chunk's own (innermost) section: how a prompt's reference line names
    a chunk. The headings between are context the JSON forms keep (section_path); with the chunk's
    place in the document the label is a unique address at half the tokens of the whole trail."""
    path = path_below_title(ref)
    return " > ".join([ref["document"] or "", *path[-1:]])


def reference_trail(ref: dict) -> str:
    """Document > Section > ..., the document's title once."""
    return " > ".join([ref["document"] or "", *path_below_title(ref)])
