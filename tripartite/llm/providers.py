"""LLM providers: any OpenAI-compatible chat endpoint, and the offline extractive provider.

The extractive provider is a real algorithm, not a stand-in for a model's answers: for each
concept it keeps the sentences of the text that name the concept (its name or a synonym, as
whole words) or that are close to the concept's description in embedding space. It needs no
network and no key, and it is deterministic.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from tripartite.lexical.sentences import sentences_of


@dataclass(frozen=True)
class ConceptInfo:
    id: str
    name: str
    synonyms: tuple[str, ...]
    description: str

    @property
    def gloss(self) -> str:
        """The text a concept is embedded as."""
        extra = f" ({', '.join(self.synonyms)})" if self.synonyms else ""
        return f"{self.name}: {self.description}{extra}"


@dataclass(frozen=True)
class ExtractionTask:
    stage: str                      # "chunk" or "object"
    item_id: str                    # the chunk or object id
    prompt: str                     # the exact prompt an LLM gets (and the cache key)
    text: str                       # the text itself, for the extractive provider
    concepts: tuple[ConceptInfo, ...]


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0


class RetryableError(Exception):
    """429, 5xx, timeouts and dropped connections: worth another try after a pause."""


class ProviderError(Exception):
    """Anything else (bad key, unknown model): retrying will not help."""


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

    def __init__(self, embedder, similarity: float = 0.5, max_sentences: int = 6):
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

    def extract(self, task: ExtractionTask) -> tuple[dict[str, str], Usage]:
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


class OpenAIChatProvider:
    """Any OpenAI-compatible chat completions endpoint (OpenAI, Azure, Ollama, vLLM, llama.cpp)."""

    offline = False
    name = "openai"

    def __init__(self, model: str, base_url: str = "", api_key: str = "", timeout: float = 60.0):
        import openai

        self.model = model
        self.client = openai.OpenAI(base_url=base_url or None, api_key=api_key or "not-needed",
                                    timeout=timeout, max_retries=0)  # retries are the runner's job

    def check_reachable(self, where: str) -> None:
        """Fail fast, with one line, when the endpoint does not answer at all."""
        import openai

        from tripartite.errors import TripartiteError

        try:
            self.client.models.list()
        except (openai.APIConnectionError, openai.APITimeoutError) as exc:
            raise TripartiteError(f"LLM endpoint {where} is not reachable ({type(exc).__name__}); check "
                                  "OPENAI_BASE_URL, or unset TRIPARTITE_LLM_MODEL to use the offline provider") from None
        except openai.AuthenticationError:
            raise TripartiteError(f"LLM endpoint {where} refused the API key; set OPENAI_API_KEY") from None
        except openai.APIError:
            pass  # some servers have no /models; the calls themselves will tell

    def complete(self, messages: list[dict], json_mode: bool = True) -> tuple[str, Usage]:
        import openai

        extra = {"response_format": {"type": "json_object"}} if json_mode else {}
        try:
            response = self.client.chat.completions.create(
                model=self.model, messages=messages, temperature=0, **extra)
        except (openai.RateLimitError, openai.APITimeoutError, openai.APIConnectionError,
                openai.InternalServerError) as exc:
            raise RetryableError(f"{type(exc).__name__}: {str(exc)[:120]}") from None
        except openai.APIStatusError as exc:
            if exc.status_code >= 500:
                raise RetryableError(f"HTTP {exc.status_code}") from None
            raise ProviderError(f"HTTP {exc.status_code}: {str(exc)[:160]}") from None
        content = response.choices[0].message.content or ""
        usage = response.usage
        return content, Usage(usage.prompt_tokens if usage else 0, usage.completion_tokens if usage else 0)


def make_provider(settings, embedder, offline: bool = False):
    """The configured OpenAI-compatible model, or the extractive provider when none is
    configured (or offline is asked for)."""
    if settings.llm.configured and not offline:
        return OpenAIChatProvider(settings.llm.model, settings.llm.base_url, settings.llm.api_key,
                                  timeout=settings.llm.timeout)
    return ExtractiveProvider(embedder)
