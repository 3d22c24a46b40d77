"""The offline extractive provider of the pre-analysis: a real algorithm, not a stand-in for a
model's answers. For each concept it keeps the sentences of the text that name the concept
(its name or a synonym, as whole words, in their English inflections: term_forms) or that are
close to the concept's description in embedding space. It needs no network and no key, and it
is deterministic.

Closeness asks more of a document's sentence (0.6) than of an object's (0.5). A guideline
speaks the domain's language throughout, so nearly every sentence of a heart guideline is 0.5
from some heart concept's description; against our reading of 48 guideline chunks
(bench/concept_detection_labels.tsv) 10 of the 11 chunk-concept pairs found by closeness alone
at 0.5 were wrong, none at 0.6 (`python bench/concept_detection_bench.py`). An object's note
paraphrases its concepts ("short of breath" for dyspnoea) and keeps 0.5. Closeness is not
trusted at all for a fragment of fewer than three words: a note's headings ("Cardiovascular",
"Respiratory") are 0.5 from coronary heart disease and dyspnoea, and were read as 13 notes'
coronary heart disease and 6 notes' shortness of breath on the shared corpus. (These three
rules make extractive-v2; docs/results.md has what each moved.)

A list's item is kept with the sentence that introduces the list (extractive-v3): "Diabetes"
alone, an item of "Causes of heart failure include:", tells a prompt's reader nothing of what
the passage says about diabetes. An item is a paragraph after one that ends with a colon (or
after another item) that starts with a list marker, or is one sentence without a sentence end
or of at most ITEM_WORDS words ("A stress management program.").
"""
from __future__ import annotations

import functools
import re
from typing import Sequence

import numpy as np

from tripartite.analysis.schema import ExtractionTask
from tripartite.infra.llm.providers import Usage
from tripartite.ontology.concept import ConceptInfo
from tripartite.lexical.sentences import SENTENCE_END, sentences_of

MIN_CLOSE_WORDS = 3  # a fragment shorter than this is kept only when it names the concept
_LIST_MARKER = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])(?:\s|$)")
_LEAD_END = (":", "：")
ITEM_WORDS = 6  # a one-sentence paragraph this short, after a colon, is a list item even with a full stop
_WORDS = re.compile(r"[^\W\d_]+|\d+")
_CJK_CHARACTER = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def word_count(sentence: str) -> int:
    """Words of a sentence: Latin words and numbers, and a Chinese character as half a word (a
    Chinese word is mostly two)."""
    cjk = len(_CJK_CHARACTER.findall(sentence))
    return len(_WORDS.findall(_CJK_CHARACTER.sub(" ", sentence))) + cjk // 2


@functools.lru_cache(maxsize=65536)  # an imported ontology brings thousands; compiling each per chunk dominated
def synonym_pattern(concept: ConceptInfo, inflected: bool = False) -> re.Pattern:
    """Whole-word matches of the name and synonyms; short all-caps ones (AF, MI) match case.
    `inflected` also matches the English inflections of a term's last word (term_forms): how
    the pre-analysis reads; the lexicon judge and the keywords keep the terms as written."""
    loose, exact = [], []
    for term in {concept.name, *concept.synonyms}:
        term = term.strip()
        if not term:
            continue
        if len(term) <= 4 and term.isupper():
            exact.append(re.escape(term))
        else:
            loose += [re.escape(form) for form in (term_forms(term) if inflected else (term,))]
    parts = []
    if loose:
        parts.append(r"(?i:\b(?:" + "|".join(sorted(set(loose), key=len, reverse=True)) + r")\b)")
    if exact:
        parts.append(r"\b(?:" + "|".join(sorted(exact, key=len, reverse=True)) + r")\b")
    return re.compile("|".join(parts) if parts else r"(?!x)x")


def term_forms(term: str) -> tuple[str, ...]:
    """A term and the English inflections of its last word, so that a text saying "blood
    thinners", "triglyceride", "family histories" or "dizziness" names blood thinner,
    triglycerides, family history or dizzy: a plural's singular, a singular's plural (s, es,
    y/ies), and the noun of an adjective in -y (-iness). A last word of three letters or fewer,
    or not all letters, is kept as it is."""
    head, _, last = term.rpartition(" ")
    lower = last.lower()
    if len(last) <= 3 or not last.isalpha():
        return (term,)
    forms = {last}
    if lower.endswith("ies"):  # arteries, calories
        forms |= {last[:-3] + "y", last[:-1]}
    elif lower.endswith(("sses", "xes", "zes", "ches", "shes")):  # glasses, headaches, wheezes
        forms |= {last[:-2], last[:-1]}
    elif lower.endswith("s") and not lower.endswith(("ss", "us", "is")):
        forms.add(last[:-1])
    elif lower.endswith("y") and lower[-2] not in "aeiou":
        forms |= {last[:-1] + "ies", last[:-1] + "iness"}
    elif lower.endswith(("s", "x", "z", "ch", "sh")):
        forms.add(last + "es")
    else:
        forms.add(last + "s")
    prefix = head + " " if head else ""
    return tuple(sorted(prefix + form for form in forms))


class ExtractiveProvider:
    """Offline, deterministic: sentences naming the concept or close to its description."""

    offline = True
    name = "extractive"
    model = "extractive-v3"  # v2: list items without their lead-in; v1: 0.5 of closeness everywhere, terms as written

    def __init__(self, embedder, similarity: float = 0.5, max_sentences: int = 3, document_similarity: float = 0.6):
        self.embedder = embedder
        self.similarity = similarity                    # an object's sentence
        self.document_similarity = document_similarity  # a chunk's sentence
        self.max_sentences = max_sentences
        self._patterns: dict[str, re.Pattern] = {}
        self._gloss_vectors: dict[str, np.ndarray] = {}

    def _pattern(self, concept: ConceptInfo) -> re.Pattern:
        if concept.id not in self._patterns:
            self._patterns[concept.id] = synonym_pattern(concept, inflected=True)
        return self._patterns[concept.id]

    def _glosses(self, concepts: Sequence[ConceptInfo]) -> np.ndarray:
        missing = [c for c in concepts if c.id not in self._gloss_vectors]
        if missing:
            for concept, vector in zip(missing, self.embedder.embed([c.gloss for c in missing])):
                self._gloss_vectors[concept.id] = vector
        return np.stack([self._gloss_vectors[c.id] for c in concepts])

    def answer(self, task: ExtractionTask) -> tuple[dict[str, str], Usage]:
        paragraphs = sentences_of(task.text)
        sentences = [s for paragraph in paragraphs for s in paragraph]
        leads = lead_ins(paragraphs)
        if not sentences or not task.concepts:
            return {c.id: "" for c in task.concepts}, Usage()
        similarity = self.embedder.embed(sentences) @ self._glosses(task.concepts).T  # (sentences, concepts)
        answer: dict[str, str] = {}
        threshold = self.document_similarity if task.stage == "chunk" else self.similarity
        worded = [word_count(s) >= MIN_CLOSE_WORDS for s in sentences]
        for j, concept in enumerate(task.concepts):
            pattern = self._pattern(concept)
            named = [i for i, s in enumerate(sentences) if pattern.search(s)]
            close = [i for i in np.argsort(-similarity[:, j]) if similarity[i, j] >= threshold and worded[i]]
            keep = set(list(dict.fromkeys(named + close))[: self.max_sentences])
            keep |= {leads[i] for i in keep if leads[i] is not None}
            answer[concept.id] = " ".join(sentences[i] for i in sorted(keep))
        return answer, Usage()


def lead_ins(paragraphs: list[list[str]]) -> list[int | None]:
    """For each sentence of the paragraphs (in one flat list), the index of the sentence that
    introduces the list it is an item of, or None (see the module doc)."""
    leads: list[int | None] = []
    lead: int | None = None
    for paragraph in paragraphs:
        first, introduces = paragraph[0].strip(), paragraph[-1].rstrip().endswith(_LEAD_END)
        short = len(paragraph) == 1 and (not SENTENCE_END.search(first) or word_count(first) <= ITEM_WORDS)
        item = lead is not None and not introduces and (bool(_LIST_MARKER.match(first)) or short)
        if not item:
            lead = None
        leads += [lead] * len(paragraph)
        if introduces:
            lead = len(leads) - 1
    return leads
