"""Sections to size-bounded chunks on sentence boundaries.

Sizes are in the embedding model's tokens (word pieces for all-MiniLM-L6-v2), so a chunk is
embedded whole: the default 200 leaves room under the model's 256-piece window for its two
special tokens. A sentence longer than the limit is split between words. Ids are hashes of
the content and position, so an unchanged file always yields the same ids.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence

from tripartite.lexical.model import (ChunkRecord, DocumentRecords, ParsedDocument, SectionRecord,
                                      short_hash)
from tripartite.lexical.sentences import sentences_of

CHUNKER_VERSION = "sentences-v1"
DEFAULT_CHUNK_TOKENS = 200


class TokenCounter(Protocol):
    name: str

    def count_many(self, texts: Sequence[str]) -> list[int]: ...


@dataclass(frozen=True)
class _Piece:
    text: str
    tokens: int
    paragraph: int


def chunker_signature(counter: TokenCounter, max_tokens: int) -> str:
    return f"{CHUNKER_VERSION}/{counter.name}/{max_tokens}"


def _pieces(body: str, counter: TokenCounter, max_tokens: int) -> list[_Piece]:
    sentences = [(p, s) for p, paragraph in enumerate(sentences_of(body)) for s in paragraph]
    counts = counter.count_many([s for _, s in sentences]) if sentences else []
    pieces: list[_Piece] = []
    for (paragraph, sentence), tokens in zip(sentences, counts):
        if tokens <= max_tokens:
            pieces.append(_Piece(sentence, tokens, paragraph))
        else:
            pieces.extend(_split_long(sentence, paragraph, counter, max_tokens))
    return pieces


def _split_long(sentence: str, paragraph: int, counter: TokenCounter, max_tokens: int) -> list[_Piece]:
    words = sentence.split()
    counts = counter.count_many(words)
    out: list[_Piece] = []
    current: list[str] = []
    total = 0
    for word, tokens in zip(words, counts):
        tokens = min(tokens, max_tokens)  # a single absurd "word" is truncated by the model anyway
        if current and total + tokens > max_tokens:
            out.append(_Piece(" ".join(current), total, paragraph))
            current, total = [], 0
        current.append(word)
        total += tokens
    if current:
        out.append(_Piece(" ".join(current), total, paragraph))
    return out


def _pack(pieces: list[_Piece], max_tokens: int) -> list[tuple[str, int]]:
    chunks: list[tuple[str, int]] = []
    text, tokens, paragraph = "", 0, -1
    for piece in pieces:
        if text and tokens + piece.tokens > max_tokens:
            chunks.append((text, tokens))
            text, tokens = "", 0
        if text:
            text += (" " if piece.paragraph == paragraph else "\n\n") + piece.text
        else:
            text = piece.text
        tokens += piece.tokens
        paragraph = piece.paragraph
    if text:
        chunks.append((text, tokens))
    return chunks


def chunk_document(document: ParsedDocument, counter: TokenCounter,
                   max_tokens: int = DEFAULT_CHUNK_TOKENS) -> DocumentRecords:
    records = DocumentRecords(document, chunker_signature(counter, max_tokens))
    seen_paths: dict[tuple[str, ...], int] = {}
    section_ids: list[str] = []
    index = 0
    for order, section in enumerate(document.sections):
        occurrence = seen_paths.get(section.path, 0)
        seen_paths[section.path] = occurrence + 1
        section_id = f"{document.id}:s{short_hash(document.id, *section.path, str(occurrence))}"
        section_ids.append(section_id)
        parent_id = section_ids[section.parent] if section.parent is not None else None
        records.sections.append(SectionRecord(section_id, document.id, parent_id, section.title, section.level,
                                              order, list(section.path)))
        for n, (text, tokens) in enumerate(_pack(_pieces(section.body, counter, max_tokens), max_tokens)):
            chunk_id = f"{document.id}:{short_hash(section_id, str(n), text)}"
            records.chunks.append(ChunkRecord(chunk_id, document.id, section_id, index, text, tokens))
            index += 1
    return records
