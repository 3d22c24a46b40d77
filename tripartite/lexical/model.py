"""Plain data for one parsed document, before it is written to Neo4j."""
from __future__ import annotations

from dataclasses import dataclass, field

from tripartite.infra.errors import TripartiteError


class IngestError(TripartiteError):
    """A source file cannot be read; the message names it and the fix."""


class EmptyDocument(IngestError):
    """Not a failure: the file holds no text, so there is nothing to ingest."""


@dataclass(frozen=True)
class ParsedSection:
    """A heading and the text directly under it (not its subsections' text)."""

    title: str
    level: int            # heading level 1-6; 1 for a headingless document's single section
    path: tuple[str, ...]  # titles from the top section down to this one
    parent: int | None     # index of the parent in ParsedDocument.sections
    body: str


@dataclass(frozen=True)
class ParsedDocument:
    id: str
    title: str
    path: str
    format: str  # markdown | text | pdf
    content_hash: str
    size_bytes: int
    sections: tuple[ParsedSection, ...]
    front_matter: tuple[str, ...] = ()  # the keys of the YAML front matter left out of the text


@dataclass(frozen=True)
class SectionRecord:
    id: str
    document_id: str
    parent_id: str | None
    title: str
    level: int
    order: int
    path: list[str]


@dataclass(frozen=True)
class ChunkRecord:
    id: str
    document_id: str
    section_id: str
    index: int
    text: str
    token_count: int


@dataclass(frozen=True)
class DocumentRecords:
    document: ParsedDocument
    chunker: str  # signature of the chunker settings; a change re-chunks the document
    sections: list[SectionRecord] = field(default_factory=list)
    chunks: list[ChunkRecord] = field(default_factory=list)
