"""The offline extractive provider of the pre-analysis: a real algorithm, not a stand-in for a
model's answers. For each concept it keeps the sentences of the text that name the concept
(its name or a synonym, as whole words) or that are close to the concept's description in
embedding space. It needs no network and no key, and it is deterministic.
"""
from __future__ import annotations

import functools
import re
from typing import Sequence

import numpy as np

from tripartite.analysis.schema import ExtractionTask
from tripartite.infra.llm.providers import Usage
from tripartite.ontology.concept import ConceptInfo
from tripartite.lexical.sentences import sentences_of


@functools.lru_cache(maxsize=65536)  # an imported ontology brings thousands; compiling each per chunk dominated
def synonym_pattern(concept: ConceptInfo) -> re.Pattern:
    """Whole-word matches of the name and synonyms; short all-caps ones (AF, MI) match case."""
    loose, exact = [], []
    for term in {concept.name, *concept.synonyms}:
        term = term.strip()
        if not term:
            continue
        (exact if len(term) <= 4 and term.isupper() else loose).append(re.escape(term))
    parts = []
    if loose:
        parts.append(r"(?i:\b(?:" + "|".join(sorted(loose, key=len, reverse=True)) + r")\b)")
    if exact:
        parts.append(r"\b(?:" + "|".join(sorted(exact, key=len, reverse=True)) + r")\b")
    return re.compile("|".join(parts) if parts else r"(?!x)x")


class ExtractiveProvider:
    """Offline, deterministic: sentences naming the concept or close to its description."""

    offline = True
    name = "extractive"
    model = "extractive-v1"

    def __init__(self, embedder, similarity: float = 0.5, max_sentences: int = 3):
        self.embedder = embedder
        self.similarity = similarity
        self.max_sentences = max_sentences
        self._patterns: dict[str, re.Pattern] = {}
        self._gloss_vectors: dict[str, np.ndarray] = {}

    def _pattern(self, concept: ConceptInfo) -> re.Pattern:
        if concept.id not in self._patterns:
            self._patterns[concept.id] = synonym_pattern(concept)
        return self._patterns[concept.id]

    def _glosses(self, concepts: Sequence[ConceptInfo]) -> np.ndarray:
        missing = [c for c in concepts if c.id not in self._gloss_vectors]
        if missing:
            for concept, vector in zip(missing, self.embedder.embed([c.gloss for c in missing])):
                self._gloss_vectors[concept.id] = vector
        return np.stack([self._gloss_vectors[c.id] for c in concepts])

    def answer(self, task: ExtractionTask) -> tuple[dict[str, str], Usage]:
        sentences = [s for paragraph in sentences_of(task.text) for s in paragraph]
        if not sentences or not task.concepts:
            return {c.id: "" for c in task.concepts}, Usage()
        similarity = self.embedder.embed(sentences) @ self._glosses(task.concepts).T  # (sentences, concepts)
        answer: dict[str, str] = {}
        for j, concept in enumerate(task.concepts):
            pattern = self._pattern(concept)
            named = [i for i, s in enumerate(sentences) if pattern.search(s)]
            close = [i for i in np.argsort(-similarity[:, j]) if similarity[i, j] >= self.similarity]
            keep = list(dict.fromkeys(named + close))[: self.max_sentences]
            answer[concept.id] = " ".join(sentences[i] for i in sorted(keep))
        return answer, Usage()
