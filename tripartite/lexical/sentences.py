"""Sentence splitting for chunking: paragraphs, list items and sentence ends.

A regular-expression splitter, not a statistical one: it keeps abbreviations (e.g., Dr.,
Fig. 2), decimals (2.5 mg) and initials together, and treats every paragraph, list item,
table row and code block as a boundary.
"""
from __future__ import annotations

import re
from typing import Callable

ABBREVIATIONS = {
    "e.g", "i.e", "etc", "vs", "dr", "mr", "mrs", "ms", "prof", "fig", "figs", "no", "nos", "approx",
    "ca", "cf", "al", "st", "jr", "sr", "inc", "ltd", "co", "dept", "min", "max", "mg", "ml", "kg", "vol",
    "p", "pp", "ed", "eds", "u.s", "u.k", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept",
    "oct", "nov", "dec", "approx", "resp", "incl", "excl", "esp", "sec", "ch",
}
# A candidate end: . ! or ? (optionally followed by closing quotes/brackets), then space; or a
# full-width 。！？ (Chinese and Japanese text puts no space after them).
_CANDIDATE = re.compile(r"[.!?]+[\"'”’)\]]*\s+|[。！？]+[”’」』）]*\s*")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+")
# A text that ends as a finished sentence does (not on a colon, not mid-phrase as a list item does).
SENTENCE_END = re.compile(r"[.!?。！？][\"'”’)\]」』）]*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def split_paragraphs(text: str) -> list[str]:
    """Blocks separated by blank lines; list items and fenced code stay whole, and a table's
    rows (adjacent lines starting with '|') are one block."""
    lines = text.splitlines()
    if len(lines) <= 1:  # one line is one block (most extracts): no scan
        return [text.strip()] if text.strip() else []
    blocks: list[str] = []
    current: list[str] = []
    in_code = False

    def flush() -> None:
        if current:
            blocks.append("\n".join(current).strip())
            current.clear()

    for line in lines:
        if _FENCE.match(line):
            if in_code:
                current.append(line)
                flush()
                in_code = False
            else:
                flush()
                current.append(line)
                in_code = True
            continue
        if in_code:
            current.append(line)
            continue
        if not line.strip():
            flush()
        elif line.lstrip().startswith("|"):
            if current and not current[-1].startswith("|"):
                flush()  # a table starts its own block
            current.append(line.strip())
        elif _LIST_ITEM.match(line):
            flush()
            current.append(line.strip())
        else:
            if current and current[-1].startswith("|"):
                flush()  # text right under a table is not a row
            current.append(line.strip())
    flush()
    return [b for b in blocks if b]


def split_sentences(paragraph: str) -> list[str]:
    """The sentences of a paragraph; a code block is one, and a table's rows are its sentences."""
    if paragraph.startswith(("```", "~~~")):
        return [paragraph]
    if paragraph.startswith("|"):
        return paragraph.split("\n")
    text = " ".join(paragraph.split()) if "\n" in paragraph else paragraph
    sentences: list[str] = []
    start = 0
    for match in _CANDIDATE.finditer(text):
        end = match.end()
        if end >= len(text):
            break
        before = text[start:match.start() + 1]
        word = before.rsplit(None, 1)[-1].rstrip(".!?").lower() if before.split() else ""
        following = text[end:end + 1]
        if match.group().startswith(".") and (
            word in ABBREVIATIONS
            or (len(word) == 1 and word.isalpha())  # an initial: "J. Smith"
            or not (following.isupper() or following.isdigit() or following in "\"'“‘([")
        ):
            continue
        sentences.append(text[start:end].strip())
        start = end
    tail = text[start:].strip()
    if tail:
        sentences.append(tail)
    return sentences


def sentences_of(text: str) -> list[list[str]]:
    """The sentences of each paragraph of `text`."""
    return [split_sentences(p) for p in split_paragraphs(text)]


# Where a clause ends inside a sentence: a full-width comma or semicolon (Chinese chains clauses
# with "，" where English would end the sentence), or a semicolon. An English comma is not one:
# it parts list items and phrases as often as clauses.
_CLAUSE_END = re.compile(r"(?<=[，；;])")


def split_clauses(sentence: str, count: Callable[[str], int], min_size: int) -> list[str]:
    """A long sentence as runs of its clauses, each at least `min_size` as `count` measures (a
    last run under half that joins the one before); a sentence without clause ends stays whole."""
    runs, current = [], ""
    for clause in _CLAUSE_END.split(sentence):
        current += clause
        if count(current) >= min_size:
            runs.append(current.strip())
            current = ""
    if current.strip():
        if runs and count(current) < min_size / 2:
            runs[-1] += current.rstrip()
        else:
            runs.append(current.strip())
    return [run for run in runs if run]
