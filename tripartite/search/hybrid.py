"""Hybrid search: the lexical graph, the triplet graph and the communities, ranked on one scale
and merged under one token budget.

Candidates come from cypher/search/hybrid.cypher: the chunks closest to the question, the
chunks that say its keywords best (full-text, BM25), the chunks the entities named by the
keywords came from (with the relations between those entities), and the community summaries
closest to the question or holding those entities. Every candidate, chunk or summary, is
scored on one scale:

    score = closeness + KEYWORD_WEIGHT * (share of the keywords' weight it holds)
            + ENTITY_WEIGHT * (share of the question's entities it came with)
            + LEXICAL_WEIGHT * (its BM25 score over the best one's) * (share of its letters
                                                                       the embedder cannot read)

where a summary's closeness is its cosine to the question, and a chunk's blends its text's with
its headings-and-text's (CONTEXT_WEIGHT: a short chunk under "Field weakening > Configuration"
is about field weakening though it never says so), and that in turn half and half with its
closest sentence's cosine (SENTENCE_SHARE: a paraphrased question is answered by one sentence,
which a chunk's one vector, the mean of all it says, dilutes; not in a chunk that is mostly table
rows, a row read without its header saying too little alone). A keyword weighs more the fewer
candidate chunks hold it. The last term stands in for the closeness where the embedder cannot
read the text (Chinese under the English default model): in text it reads, a paraphrase is
found better by closeness than by words. The best
candidates are taken until the budget is spent, each chunk once, a candidate less
REDUNDANCY_WEIGHT times its highest cosine to a chunk already taken (maximal marginal
relevance: what repeats the prompt waits), except the chunk that follows one taken whose match
ends it: that one goes on with what the match began (a cause after "Some people have white coat
hypertension."), it does not repeat it. The first chunk taken from a document gains
SPREAD_WEIGHT times that document's share of the question (the softmax of its best candidate's
score): a question about one document gives the others nearly nothing, one that spans the corpus
hears from each document that answers part of it (xQuAD, the documents as its aspects). A
chunk is quoted as an excerpt (search/excerpts.py: its sentences that match the question, each
with the sentences beside it, the whole chunk when that is most of it). Quoting
excerpts rather than whole chunks is what lets one budget reach more chunks; ranking whole
chunks first is what keeps the context a sentence needs (not for a chunk the question's
reading cannot read, an English question's Chinese chunk: its closeness is a guess, and quoted
whole it would spend what reaches more of them). Community summaries, the corpus-wide view,
stand in their own section, and only those closer to the question than every passage (with
the offline report writer's summaries, taken by score alone they had filled a sixth of the
budget and found no answer a passage did not).

The question is read by each model of the default embedder that can read it (an English
question by the Chinese model too: infra/question_vectors.py), so an English question
finds Chinese passages by meaning, not only by the Latin names they share; and where passages
of the other language are among its candidates (English and Chinese), its keywords are looked
up by their words in that language too (search/translations.py: a dictionary), a keyword and its
words counting as one. Where no model reads the question in that language (a Chinese question,
English passages: their closeness is 0, the closest chunks a draw), the full-text index's best
hits take the closest chunks' places as well (TEXT_LIMIT + CHUNK_LIMIT of them).
"""
from __future__ import annotations

import math
import re

import numpy as np

from tripartite.infra.errors import TripartiteError
from tripartite.infra.graph import Graph
from tripartite.infra.languages import text_language
from tripartite.infra.question_vectors import CROSS_LANGUAGE_WEIGHT, question_readings, summed
from tripartite.infra.quoting import quote
from tripartite.infra.tokens import count_tokens
from tripartite.kg.phrases import CJK
from tripartite.lexical.embed import pending_line
from tripartite.lexical.trails import reference_cost, references_block
from tripartite.search.constants import HYBRID_TOKENS
from tripartite.search.excerpts import (ends_on_match, excerpt, excerpt_of, leans_back, mostly_table_rows,
                                        sentence_units)
from tripartite.search.gaps import triplet_graph_gaps
from tripartite.search.keywords import question_keywords
from tripartite.search.translations import translated_keywords

INTRO = ("Answer the question from the numbered passages below (sentences quoted from the reference documents, "
         "an ellipsis where a passage skips){summaries}; cite the passages you use by their numbers in brackets.")
MAX_TOKENS = HYBRID_TOKENS
CHUNK_LIMIT = 24       # the chunks closest to the question, before the entities' own
TEXT_LIMIT = 12        # the chunks that say the question's keywords best (full-text), besides those
ENTITY_LIMIT = 12
COMMUNITY_LIMIT = 4
KEYWORD_WEIGHT = 0.2
LEXICAL_WEIGHT = 0.4   # times a chunk's full-text (BM25) score over the best one's, where the embedder cannot read
ENTITY_WEIGHT = 0.1
RELATION_WEIGHT = 0.1  # a sentence a relation between the question's entities came from
WHOLE_FIRST = 0.6      # chunks are quoted whole until this share of the budget is spent, then as excerpts
COMMUNITY_SHARE = 0.15  # community summaries (derived, not quoted) take at most this share of the budget
REDUNDANCY_WEIGHT = 0.1  # times a candidate's highest cosine to a chunk taken: say new things (MMR)
CONTEXT_WEIGHT = 0.5   # a chunk's cosine: (its text's + this x its headings-and-text's) / (1 + this)
SENTENCE_SHARE = 0.5   # a chunk's closeness: (1 - this) x its own + this x its closest sentence's
SPREAD_WEIGHT = 0.1    # times a document's share of the question: what the first chunk taken from it gains
SPREAD_TEMPERATURE = 0.05  # a document's share: softmax of its best candidate's score at this temperature


def _latin(word: str) -> str:
    """An English word or phrase as a pattern: whole words, a plural or -ed / -ing ending allowed."""
    stem = re.escape(word.lower().rstrip("s") if len(word) > 4 else word.lower())
    return rf"(?i:(?<!\w){stem}(?:s|es|ed|ing)?(?!\w))"


def _pattern(keyword: str, translations: tuple[str, ...] = ()) -> re.Pattern:
    """A keyword as it may appear, or any of its words in the other language
    (search/translations.py): each in Latin script as whole words (see _latin), in Chinese anywhere."""
    return re.compile("|".join(re.escape(w) if CJK.search(w) else _latin(w) for w in (keyword, *translations)))


def keyword_weights(keywords: list[str], texts: list[str],
                    translations: dict[str, list[str]] | None = None) -> list[tuple[re.Pattern, float]]:
    """Each keyword's pattern and weight, log(1 + N / (1 + df)) over the N candidate chunks:
    a keyword few candidates hold tells them apart. A keyword and its words in the other
    language are one."""
    patterns = [_pattern(k, tuple((translations or {}).get(k, ()))) for k in keywords]
    n = len(texts)
    return [(p, math.log(1 + n / (1 + sum(1 for t in texts if p.search(t))))) for p in patterns]


def keyword_share(text: str, weights: list[tuple[re.Pattern, float]]) -> float:
    total = sum(w for _, w in weights)
    return sum(w for p, w in weights if p.search(text)) / total if total else 0.0


def unread_share(text: str, embedder, question: str = "") -> float:
    """The share of the text's letters whose meaning its cosine to the question misses: with
    the default (each language by its own model), all of them when the text and the question
    are of two languages (the cosine is then the text's model reading the question in a language
    not its own, which finds less than the question's own model would); those outside the Latin script for
    an English-only model (all-MiniLM-L6-v2); none for a multilingual one. There the cosine
    says little, and the chunk's full-text score stands in for it."""
    members = getattr(embedder, "members", None)
    if members:
        language = text_language(text)
        if language != text_language(question):
            return 1.0
        embedder = members.get(language, embedder)
    if not getattr(embedder, "latin_only", False):
        return 0.0
    letters = [c for c in text if c.isalpha()]
    return sum(1 for c in letters if ord(c) > 0x24F) / len(letters) if letters else 0.0


def candidates(found: dict, keywords: list[str], question_vector: np.ndarray, embedder, question: str = "",
               translations: dict[str, list[str]] | None = None) -> list[dict]:
    """Chunks and community summaries scored on the one scale (see the module doc), best first;
    each chunk with its sentences scored the same way, for its excerpt."""
    weights = keyword_weights(keywords, [c["text"] or "" for c in found["chunks"]], translations)
    seeds = max(1, len({name for c in found["chunks"] for name in c["entities"]}))
    related = {r["description"].strip(". ") for r in found["relations"] if r["inside"] and r["description"]}
    items = []
    for chunk in found["chunks"]:
        unread = unread_share(chunk["text"] or "", embedder, question)
        items.append({"kind": "chunk", "chunk": chunk, "sentences": sentence_units(chunk["text"]),
                      "cosine": chunk["cosine"], "keywords": keyword_share(chunk["text"] or "", weights),
                      "entities": len(chunk["entities"]) / seeds, "unread": unread,
                      "lexical": chunk["lexical"] * unread})
    for community in found["communities"]:
        text = (community["summary"] or "").strip()
        if text:
            items.append({"kind": "community", "community": community, "text": text, "cosine": community["cosine"],
                          "keywords": keyword_share(text, weights), "entities": 0.0, "lexical": 0.0})
    chunks = [i for i in items if i["kind"] == "chunk"]
    flat = [x for i in chunks for x in i["sentences"]]
    cosines = embedder.embed(flat) @ question_vector if flat else np.zeros(0)
    at = 0
    for item in chunks:
        n = len(item["sentences"])
        own = cosines[at:at + n]
        item["sentence_scores"] = [float(v) + KEYWORD_WEIGHT * keyword_share(x, weights)
                                   + RELATION_WEIGHT * any(d in x for d in related)
                                   for x, v in zip(item["sentences"], own)]
        if n and not mostly_table_rows(item["sentences"]):
            # a question answered by one sentence is closer to it than to its chunk's mean (a
            # table row, read without its header, says too little alone to stand for the chunk)
            item["cosine"] = (1 - SENTENCE_SHARE) * item["cosine"] + SENTENCE_SHARE * float(own.max())
        at += n
    for item in items:
        item["score"] = round(item["cosine"] + KEYWORD_WEIGHT * item["keywords"] + ENTITY_WEIGHT * item["entities"]
                              + LEXICAL_WEIGHT * item["lexical"], 6)
        embedding = item["chunk"].get("embedding") if item["kind"] == "chunk" else None
        item["vector"] = None if embedding is None else np.asarray(embedding, dtype=np.float32)
        item["redundancy"] = 0.0  # see took()
    return sorted(items, key=lambda i: (-i["score"], i["chunk"]["chunk_id"] if i["kind"] == "chunk" else i["text"]))


def document_shares(items: list[dict]) -> dict[str, float]:
    """How much of the question each candidate document holds: the softmax of its best chunk's
    score at SPREAD_TEMPERATURE. A question about one document gives it nearly all; one that
    spans the corpus spreads it over the documents that answer part of it."""
    best: dict[str, float] = {}
    for item in items:
        if item["kind"] == "chunk":
            document = item["chunk"]["document_id"]
            best[document] = max(best.get(document, float("-inf")), item["score"])
    top = max(best.values(), default=0.0)
    weights = {d: math.exp((score - top) / SPREAD_TEMPERATURE) for d, score in best.items()}
    total = sum(weights.values())
    return {d: w / total for d, w in weights.items()}


def merit(item: dict, shares: dict[str, float], quoted: set[str]) -> float:
    """What taking the candidate next is worth: its score, less what it repeats of the prompt
    (MMR), plus, for the first chunk quoted from a document, that document's share of the
    question (xQuAD with the documents as the question's aspects): a question that spans the
    corpus hears from each document that answers part of it before a third chunk of the first."""
    document = item["chunk"]["document_id"] if item["kind"] == "chunk" else None
    spread = SPREAD_WEIGHT * shares.get(document, 0.0) if document is not None and document not in quoted else 0.0
    return item["score"] - REDUNDANCY_WEIGHT * item["redundancy"] + spread


def without_summaries_a_passage_beats(items: list[dict]) -> list[dict]:
    """The candidates less the community summaries some chunk scores as high as: a summary
    (derived, not quoted) is the corpus-wide view where no passage says as much."""
    best = max((i["score"] for i in items if i["kind"] == "chunk"), default=float("-inf"))
    return [i for i in items if i["kind"] == "chunk" or i["score"] > best]


class Packing:
    """The prompt as it fills: chunks in the order they were first taken, each with its chosen
    sentences; community summaries apart."""

    def __init__(self, question: str, max_tokens: int):
        self.question, self.max_tokens = question, max_tokens
        self.chunks: dict[str, dict] = {}
        self.communities: list[dict] = []

    def text(self) -> str:
        summaries = " and the community summaries" if self.communities else ""
        parts = [f"Question: {quote(self.question)}", "", INTRO.format(summaries=summaries), ""]
        if self.communities:
            parts += ["Community summaries:", *(f"- {c['title']}: {quote(c['summary'])}" for c in self.communities), ""]
        if self.chunks:
            parts.append("Passages:")
            for n, entry in enumerate(self.chunks.values(), start=1):
                parts.append(f"[{n}] {quote(excerpt(entry['sentences']))}")
            parts += ["", "References:"]
            parts += references_block(self.references())
        return "\n".join(parts).rstrip() + "\n"

    def references(self) -> list[dict]:
        """The chunks taken, numbered as the passages are, in search's reference shape."""
        return [{"n": n, "chunk_id": e["chunk"]["chunk_id"], "document": e["chunk"]["document"],
                 "section_path": e["chunk"]["section_path"] or [], "index": e["chunk"].get("index")}
                for n, e in enumerate(self.chunks.values(), start=1)]

    def tokens(self) -> int:
        return count_tokens(self.text())

    def try_add(self, item: dict, used: int) -> int | None:
        """Take a candidate if the prompt still fits; the new size, or None (nothing changed).
        A chunk whose excerpt does not fit is tried as its best sentence and the one after, or
        the one before where the best opens by pointing back at it (leans_back).
        The size is estimated from the pieces added and checked exactly near the budget."""
        if item["kind"] == "community":
            line = f"- {item['community']['title']}: {quote(item['text'])}"
            cost = count_tokens(line) + 1 + (0 if self.communities else 10)  # its heading, and the intro names them
            spent = sum(count_tokens(f"- {c['title']}: {quote(c['summary'])}") + 1 for c in self.communities)
            if used + cost > self.max_tokens or spent + cost > COMMUNITY_SHARE * self.max_tokens:
                return None
            self.communities.append({**item["community"], "summary": item["text"]})
            return self._checked(used + cost, lambda: self.communities.pop())
        chunk, sentences = item["chunk"], item["sentences"]
        n = len(self.chunks) + 1
        reference = reference_cost(n, chunk, {e["chunk"]["document"] or "" for e in self.chunks.values()})
        best = max(range(len(sentences)), key=lambda i: item["sentence_scores"][i]) if sentences else 0
        pair = (best - 1, best) if best > 0 and leans_back(sentences[best]) else (best, best + 1)
        short = {i: sentences[i] for i in pair if i < len(sentences)}
        whole = {i: x for i, x in enumerate(sentences)}
        # Whole first, but not a chunk mostly in letters the question's reading cannot read: its
        # closeness is a guess, and a guess quoted whole spends what would reach more candidates.
        readable = item.get("unread", 0.0) < 0.5
        first = [whole] if used < WHOLE_FIRST * self.max_tokens and readable else []
        for chosen in (*first, excerpt_of(item), short):
            if not chosen:
                continue
            cost = count_tokens(f"[{n}] {quote(excerpt(chosen))}") + 1 + reference + (0 if self.chunks else 8)
            if used + cost <= self.max_tokens:
                self.chunks[chunk["chunk_id"]] = {"chunk": chunk, "sentences": chosen}
                grown = self._checked(used + cost, lambda: self.chunks.pop(chunk["chunk_id"]))
                if grown is not None:
                    return grown
        return None

    def _checked(self, estimate: int, undo) -> int | None:
        if estimate < self.max_tokens - 60:
            return estimate
        exact = self.tokens()
        if exact > self.max_tokens:
            undo()
            return None
        return exact


def took(pending: list[dict], item: dict) -> None:
    """A chunk was taken: each pending chunk's redundancy, how much of it the prompt already
    says, becomes its highest cosine to a chunk taken (at least 0; a community summary has
    none, COMMUNITY_SHARE bounds those), except for the chunk that continues it where its match
    ends it (module doc). Updated once per chunk taken, not per pick."""
    if item["vector"] is None:
        return
    follows = item["chunk"].get("next_id") if ends_on_match(item) else None
    for other in pending:
        if other["vector"] is not None and other["chunk"]["chunk_id"] != follows:  # a summary has no vector
            other["redundancy"] = max(other["redundancy"], float(other["vector"] @ item["vector"]))


def reads_across(embedder, readings: list) -> bool:
    """Whether a model reads the question in the other language: with the default, a second
    reading (bge-small-zh-v1.5 reads an English question; all-MiniLM-L6-v2 no Chinese one); a
    single model, unless it reads Latin script only (then a Chinese passage or question is lost)."""
    if getattr(embedder, "members", None):
        return len(readings) > 1
    return not getattr(embedder, "latin_only", False)


def hybrid_search(graph: Graph, question: str, embedder, runner=None, max_tokens: int = MAX_TOKENS) -> dict:
    """The hybrid prompt for a question (see the module doc), in search's shape."""
    if not question.strip():
        raise TripartiteError("the question is empty; ask something")
    keywords, spent = question_keywords(graph, question, runner)
    readings = question_readings(embedder, question)
    (own, _), *others = readings
    # Another language's model's reading (with two models, the default, one: a third would share
    # the vector, each block's cosine then divided by the square root of their number).
    cross = sum(v for v, _ in others).tolist() if others else None

    def find(terms: list[str], text_limit: int = TEXT_LIMIT) -> dict | None:
        return graph.one("search/hybrid", vector=own.tolist(), cross_vector=cross, cross_weight=CROSS_LANGUAGE_WEIGHT,
                         question_keywords=terms, chunk_limit=CHUNK_LIMIT, text_limit=text_limit,
                         entity_limit=ENTITY_LIMIT, community_limit=COMMUNITY_LIMIT, context_weight=CONTEXT_WEIGHT)

    found = find(keywords)
    if found is None:
        raise TripartiteError("there are no chunks to search; ingest documents with `tripartite ingest PATH`")
    translations = translated_keywords(keywords, question, found["chunks"])
    if translations:  # passages in the other language among the candidates: the keywords are looked up in it too
        found = find(list(dict.fromkeys(keywords + [w for words in translations.values() for w in words])),
                     TEXT_LIMIT if reads_across(embedder, readings) else TEXT_LIMIT + CHUNK_LIMIT)
    vector = summed(readings)  # its dot product with a sentence: that one's closeness
    packing = Packing(question, max_tokens)
    used = packing.tokens()
    pending = candidates(found, keywords, vector, embedder, question, translations)
    pending = without_summaries_a_passage_beats(pending)
    shares = document_shares(pending)
    while pending and max_tokens - used >= 20:
        quoted = {e["chunk"]["document_id"] for e in packing.chunks.values()}
        item = max(pending, key=lambda i: merit(i, shares, quoted))
        pending.remove(item)
        grown = packing.try_add(item, used)
        if grown is not None:
            used = grown
            took(pending, item)
    text = packing.text()
    references = packing.references()
    tokens = count_tokens(text)
    material = "\n".join([c["summary"] for c in packing.communities]
                         + [excerpt(e["sentences"]) for e in packing.chunks.values()])
    return {"mode": "hybrid", "question": question, "tokens": tokens, "total_tokens": tokens + spent,
            "prompt": text, "references": references, "material": material, "keywords": keywords,
            "translations": translations,
            "communities": [{"id": c["id"], "level": c["level"], "title": c["title"]} for c in packing.communities],
            "note": "; ".join(filter(None, [triplet_graph_gaps(graph), pending_line(graph, embedder.name)]))}

