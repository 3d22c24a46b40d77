"""How hybrid search quotes a chunk: the units it is made of, the ones that match the question,
and the excerpt they make.

A chunk is quoted as an excerpt: its sentences that score within MARGIN of its best one, each
with the sentences beside it (an answer often follows the sentence that matches the question;
a sentence over LONG_SENTENCE tokens counts as runs of its clauses, a Chinese one often
chaining a paragraph's with "，"), the whole chunk when that is most of it, and an ellipsis
where sentences are skipped. A picture alone is no sentence, and a sentence that opens by
pointing back at the one before it is not quoted without it when room is short (leans_back).
"""
from __future__ import annotations

import re

from tripartite.infra.tokens import count_tokens
from tripartite.lexical.sentences import sentences_of, split_clauses

MARGIN = 0.15          # an excerpt keeps the sentences this close to its chunk's best one
WHOLE_SHARE = 0.7      # an excerpt this large becomes the whole chunk
MIN_SENTENCE_CHARS = 12
LONG_SENTENCE = 50     # tokens: a sentence longer than about two ordinary ones is quoted by its clauses
CLAUSE_TOKENS = 20     # the shortest run of clauses quoted alone
IMAGE_ONLY = re.compile(r"^(?:!\[[^\]]*\]\([^)]*\)[\s\\]*)+$")  # Markdown images and nothing else


def sentence_units(text: str) -> list[str]:
    """The units an excerpt is made of: the chunk's sentences, a long one cut into runs of its
    clauses (a Chinese sentence often chains a paragraph's clauses with "，": whole, it spends
    a hundred tokens to quote the one clause that answers)."""
    units = []
    for sentence in (x.strip() for p in sentences_of(text or "") for x in p):
        if IMAGE_ONLY.match(sentence):
            continue  # a picture's file name: nothing a reader of the prompt can read
        if count_tokens(sentence) > LONG_SENTENCE:
            units += split_clauses(sentence, count_tokens, CLAUSE_TOKENS)
        elif sentence:
            units.append(sentence)
    return units


def mostly_table_rows(sentences: list[str]) -> bool:
    """Whether at least half of a chunk's sentences are Markdown table rows."""
    return 2 * sum(1 for x in sentences if x.startswith("|")) >= len(sentences)


def matches(item: dict) -> list[int]:
    """The chunk's sentences that match the question: those scoring within MARGIN of its best
    one, long enough to say something."""
    sentences, scores = item.get("sentences") or [], item.get("sentence_scores") or []
    best = max(scores, default=0.0)
    return [i for i, score in enumerate(scores) if score >= best - MARGIN and len(sentences[i]) >= MIN_SENTENCE_CHARS]


def excerpt_of(item: dict) -> dict[int, str]:
    """A chunk's excerpt (see the module doc): sentence index -> sentence."""
    sentences = item["sentences"]
    keep: set[int] = set()
    for i in matches(item):
        keep.update(j for j in (i - 1, i, i + 1) if 0 <= j < len(sentences))
    if sentences and len(keep) >= WHOLE_SHARE * len(sentences):
        keep = set(range(len(sentences)))
    return {i: sentences[i] for i in sorted(keep)}


LEANS_BACK = re.compile(r"(?i)^(?:th(?:is|ese|at|ose)|such|they|it|its|their|he|she|his|her)\b|^[这那该此其它他她]")


def leans_back(sentence: str) -> bool:
    """Whether a sentence opens by pointing back at the one before it ("These medicines help
    bring the heart rate to a normal level."): quoted alone it names nothing."""
    return bool(LEANS_BACK.match(sentence.lstrip("*_([\"' ")))


def ends_on_match(item: dict) -> bool:
    """Whether the chunk's last sentence is one of its matches: the sentence that would follow
    that match, often what answers, opens the next chunk."""
    found = matches(item)
    return bool(found) and found[-1] == len(item["sentences"]) - 1


FULL_WIDTH_ENDS = ("。", "！", "？", "，", "；", "：")  # Chinese puts no space after them


def excerpt(sentences: dict[int, str]) -> str:
    """A chunk's chosen sentences in reading order, "..." where sentences are skipped."""
    text, last = "", None
    for i in sorted(sentences):
        if last is not None:
            text += " ... " if i != last + 1 else "" if text.endswith(FULL_WIDTH_ENDS) else " "
        text += sentences[i]
        last = i
    return text
