"""Sections to size-bounded chunks on sentence boundaries.

Sizes are in the embedding model's tokens (word pieces for all-MiniLM-L6-v2), so a chunk is
embedded whole: the default 200 leaves room under the model's 256-piece window for its two
special tokens. A sentence longer than the limit is split between words. Characters are
bounded too, at CHARS_PER_TOKEN times the token limit: the tokenizer counts a "word" of more
than 100 characters as one unknown piece, so a line without spaces would otherwise make one
giant chunk. Ids are hashes of the content and position, so an unchanged file always yields
the same ids.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence

from tripartite.lexical.ids import short_hash
from tripartite.lexical.model import ChunkRecord, DocumentRecords, ParsedDocument, SectionRecord
from tripartite.lexical.sentences import SENTENCE_END, sentences_of

CHUNKER_VERSION = "sentences-v1"
# A document with list items written as headings chunks them with the text they follow (see
# section_texts); its chunks differ from sentences-v1's, so its signature says so. Every other
# document's chunks are unchanged, and so is its signature: an upgrade re-chunks only those.
FOLDING_VERSION = "sentences-v2"
DEFAULT_CHUNK_TOKENS = 200
CHARS_PER_TOKEN = 8  # English prose averages 4 to 5 characters a word piece: only degenerate text reaches this


class TokenCounter(Protocol):
    name: str
    window: int

    def count_many(self, texts: Sequence[str]) -> list[int]: ...

    def split_long(self, text: str, max_tokens: int) -> list[tuple[str, int]]: ...


@dataclass(frozen=True)
class _Piece:
    text: str
    tokens: int
    paragraph: int


def chunker_signature(counter: TokenCounter, max_tokens: int, document: ParsedDocument | None = None) -> str:
    """What the chunks depend on besides the text: the chunker, the tokenizers that counted
    (for a counter that routes by language, the ones this document's sections went to), the size."""
    return _signature(counter, max_tokens, document, section_texts(document) if document is not None else [])


def _signature(counter: TokenCounter, max_tokens: int, document: ParsedDocument | None, texts: list[str]) -> str:
    name, version = counter.name, CHUNKER_VERSION
    if document is not None:
        if hasattr(counter, "name_for"):
            name = counter.name_for(texts)
        if texts != [section.body for section in document.sections]:
            version = FOLDING_VERSION
    return f"{version}/{name}/{max_tokens}"


def section_texts(document: ParsedDocument) -> list[str]:
    """The text each section's chunks carry: its body, followed, in a Markdown document, by the
    titles of the empty leaf headings (no text, no subsections) that come right after it as its
    siblings or children, when that text introduces a list (it ends with a colon) or is itself
    one of its items (it ends without a sentence end). Documents converted from HTML often write
    a list's items as headings ("These habits include:" then "### Healthy eating", "### Limiting
    alcohol intake", ...): no chunk held those words, so no search could find them. An empty
    heading after a finished sentence is a heading whose subsections were flattened beside it
    ("### Factors You Can't Control" before "### Heredity"), and stays a section without
    chunks, as does a run with no text before it under the same parent, or a bare "###"."""
    sections = document.sections
    texts = [section.body for section in sections]
    if document.format != "markdown":
        return texts  # a PDF outline's titles are bookmarks, not the pages' text
    parents = {section.parent for section in sections}
    holder: int | None = None  # the section a run of empty leaves follows
    for n, section in enumerate(sections):
        if section.body.strip():
            holder = n
        elif (n not in parents and holder is not None and section.parent in (sections[holder].parent, holder)
              and not section.title.startswith("(untitled level ") and not SENTENCE_END.search(texts[holder])):
            texts[holder] += "\n\n" + section.title
        else:
            holder = None
    return texts


def _pieces_by_section(texts: list[str], counter: TokenCounter, max_tokens: int) -> list[list[_Piece]]:
    """Sentences of every section's text, counted in one batch (the tokenizer runs them in parallel)."""
    max_chars = max_tokens * CHARS_PER_TOKEN
    located = [(n, p, window) for n, text in enumerate(texts)
               for p, paragraph in enumerate(sentences_of(text)) for sentence in paragraph
               for window in char_windows(sentence, max_chars)]
    counts = counter.count_many([sentence for _, _, sentence in located]) if located else []
    pieces: list[list[_Piece]] = [[] for _ in texts]
    for (n, paragraph, sentence), tokens in zip(located, counts):
        if tokens <= max_tokens:
            pieces[n].append(_Piece(sentence, tokens, paragraph))
        else:
            pieces[n].extend(_Piece(text, size, paragraph) for text, size in counter.split_long(sentence, max_tokens))
    return pieces


def char_windows(text: str, max_chars: int) -> list[str]:
    """`text` cut into pieces of at most max_chars characters, at a space where there is one."""
    windows = []
    while len(text) > max_chars:
        cut = text.rfind(" ", max_chars // 2, max_chars)
        cut = cut if cut > 0 else max_chars
        windows.append(text[:cut].strip())
        text = text[cut:].strip()
    return windows + ([text] if text else [])


def _joint(piece: _Piece, previous_paragraph: int) -> str:
    """What goes before a piece in its chunk: a blank line between paragraphs, a line break
    between a table's rows (so the chunk still reads as one table), else a space."""
    if piece.paragraph != previous_paragraph:
        return "\n\n"
    return "\n" if piece.text.startswith("|") else " "


def _pack(pieces: list[_Piece], max_tokens: int) -> list[tuple[str, int]]:
    chunks: list[tuple[str, int]] = []
    text, tokens, paragraph = "", 0, -1
    max_chars = max_tokens * CHARS_PER_TOKEN
    for piece in pieces:
        if text and (tokens + piece.tokens > max_tokens or len(text) + 2 + len(piece.text) > max_chars):
            chunks.append((text, tokens))
            text, tokens = "", 0
        if text:
            text += _joint(piece, paragraph) + piece.text
        else:
            text = piece.text
        tokens += piece.tokens
        paragraph = piece.paragraph
    if text:
        chunks.append((text, tokens))
    return chunks


def chunk_document(document: ParsedDocument, counter: TokenCounter,
                   max_tokens: int = DEFAULT_CHUNK_TOKENS) -> DocumentRecords:
    texts = section_texts(document)
    records = DocumentRecords(document, _signature(counter, max_tokens, document, texts))
    seen_paths: dict[tuple[str, ...], int] = {}
    section_ids: list[str] = []
    index = 0
    pieces = _pieces_by_section(texts, counter, max_tokens)
    for order, section in enumerate(document.sections):
        occurrence = seen_paths.get(section.path, 0)
        seen_paths[section.path] = occurrence + 1
        section_id = f"{document.id}:s{short_hash(document.id, *section.path, str(occurrence))}"
        section_ids.append(section_id)
        parent_id = section_ids[section.parent] if section.parent is not None else None
        records.sections.append(SectionRecord(section_id, document.id, parent_id, section.title, section.level,
                                              order, list(section.path)))
        for n, (text, tokens) in enumerate(_pack(pieces[order], max_tokens)):
            chunk_id = f"{document.id}:{short_hash(section_id, str(n), text)}"
            records.chunks.append(ChunkRecord(chunk_id, document.id, section_id, index, text, tokens))
            index += 1
    return records
