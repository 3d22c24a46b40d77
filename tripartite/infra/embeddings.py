"""Text embeddings. Default: all-MiniLM-L6-v2 (384 dimensions) run locally with onnxruntime.

The model reads at most 256 word pieces; longer text is truncated, so chunking keeps chunks
under that size (see `MiniLMEmbedder.count_tokens`).
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path
from typing import Sequence

import numpy as np

from tripartite.infra import model_assets

# One ONNX session per model file and thread setting in a process: loading one costs about
# 0.3 s, and onnxruntime lets threads run one session at once. Every command builds an
# embedder, and the MCP server, eval and tune build several.
_sessions: dict[tuple[str, int | None], object] = {}
_registry_lock = threading.Lock()  # guards _sessions and _recent, the process's shared registries


def _onnx_session(model: Path, threads: int | None):
    import onnxruntime

    key = (str(model), threads)
    with _registry_lock:
        if key not in _sessions:
            options = onnxruntime.SessionOptions()
            if threads:
                options.intra_op_num_threads = threads
            options.log_severity_level = 3
            _sessions[key] = onnxruntime.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
        return _sessions[key]


class _RecentVectors:
    """The vectors of the texts embedded last (a bounded LRU, about 1.5 KB a text): a
    long-running process embeds the same question, extracts and sentences again (the MCP
    server, eval over several budgets and modes, analyze after ingest), and the model is
    deterministic, so the first vector is the answer."""

    def __init__(self, capacity: int = 4096):
        self.capacity = capacity
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, text: str) -> np.ndarray | None:
        with self._lock:
            vector = self._vectors.get(text)
            if vector is not None:
                self._vectors.move_to_end(text)
            return vector

    def clear(self) -> None:
        with self._lock:
            self._vectors.clear()

    def put(self, text: str, vector: np.ndarray) -> None:
        with self._lock:
            self._vectors[text] = vector
            self._vectors.move_to_end(text)
            while len(self._vectors) > self.capacity:
                self._vectors.popitem(last=False)


_recent: dict[str, _RecentVectors] = {}  # model file -> its recent vectors


def forget_recent_vectors() -> None:
    """Drop the vectors kept in this process (a benchmark timing what a one-shot command pays)."""
    with _registry_lock:
        for recent in _recent.values():
            recent.clear()


class MiniLMEmbedder:
    """Mean-pooled, L2-normalised sentence embeddings, as sentence-transformers computes them."""

    name = "all-MiniLM-L6-v2"
    dimensions = 384
    max_tokens = 256
    latin_only = True  # trained on English: text in other scripts embeds poorly (hybrid search leans on words there)

    def __init__(self, cache_dir: Path, batch_size: int = 8, threads: int | None = None):
        from tokenizers import Tokenizer

        model = model_assets.onnx_model_path()
        # Each embedder its own tokenizer: count_tokens switches its truncation off and on.
        self.tokenizer = Tokenizer.from_file(str(model_assets.tokenizer_path(cache_dir)))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=self.max_tokens)
        self.session = _onnx_session(model, threads)
        with _registry_lock:
            self._recent = _recent.setdefault(str(model), _RecentVectors())
        self.batch_size = batch_size

    def count_tokens(self, text: str) -> int:
        """Word pieces the model sees, without truncation, including [CLS] and [SEP]."""
        self.tokenizer.no_truncation()
        try:
            return len(self.tokenizer.encode(text).ids)
        finally:
            self.tokenizer.enable_truncation(max_length=self.max_tokens)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """An (n, 384) float32 array of unit vectors."""
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        missing: dict[str, list[int]] = {}  # text -> its rows; each text is run once
        for row, text in enumerate(texts):
            vector = self._recent.get(text)
            if vector is None:
                missing.setdefault(text, []).append(row)
            else:
                out[row] = vector
        if missing:
            unique = list(missing)
            vectors = self._run(unique)
            for text, vector in zip(unique, vectors):
                out[missing[text]] = vector
                self._recent.put(text, vector.copy())  # a row of its own, not a view keeping the batch
        return out

    def _run(self, texts: list[str]) -> np.ndarray:
        """The model run on the texts, in batches of similar length."""
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        encodings = self.tokenizer.encode_batch(texts)
        # Batches of similar length waste less work on padding.
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), self.batch_size):
            batch = order[start:start + self.batch_size]
            width = max(len(encodings[i].ids) for i in batch)
            ids = np.zeros((len(batch), width), dtype=np.int64)
            mask = np.zeros((len(batch), width), dtype=np.int64)
            for row, i in enumerate(batch):
                seq = encodings[i].ids
                ids[row, :len(seq)] = seq
                mask[row, :len(seq)] = 1
            hidden = self.session.run(None, {"input_ids": ids, "attention_mask": mask,
                                             "token_type_ids": np.zeros_like(ids)})[0]
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            out[batch] = pooled / np.clip(norms, 1e-12, None)
        return out

    def embed_query(self, text: str) -> list[float]:
        """neo4j-graphrag's Embedder interface."""
        return self.embed([text])[0].tolist()


class OpenAIEmbedder:
    """Embeddings from an OpenAI-compatible /embeddings endpoint (OpenAI, Azure, Ollama, vLLM)."""

    latin_only = False  # the hosted models read many languages ([embeddings] latin_only says otherwise)

    def __init__(self, model: str, base_url: str = "", api_key: str = "", batch_size: int = 64,
                 timeout: float = 60.0, max_retries: int = 5):
        import openai

        self.name = model
        self.batch_size = batch_size
        from tripartite.infra.llm.transport import bounded_http_client
        from tripartite.infra.secrets import register

        register(api_key)
        self.client = openai.OpenAI(base_url=base_url or None, api_key=api_key or "not-needed",
                                    timeout=timeout, max_retries=max_retries, http_client=bounded_http_client(timeout))
        self.dimensions: int | None = None
        self.max_tokens = 8191

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import openai

        from tripartite.infra.errors import TripartiteError
        from tripartite.infra.llm.providers import shown
        from tripartite.infra.llm.transport import ResponseTooLarge

        vectors: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            batch = list(texts[start:start + self.batch_size])
            try:
                response = self.client.embeddings.create(model=self.name, input=batch)
                rows = sorted(response.data, key=lambda item: item.index)
            except openai.APIError as exc:
                raise TripartiteError(f"embedding endpoint failed for model {self.name}: "
                                      f"{type(exc).__name__}: {shown(exc)}; check OPENAI_BASE_URL and the model") from None
            except ResponseTooLarge as exc:
                raise TripartiteError(f"the embedding endpoint sent more than {exc.limit:,} bytes for {len(batch)} "
                                      f"texts (model {self.name}); check OPENAI_BASE_URL") from None
            except (ValueError, AttributeError, TypeError):  # a body that is not the API's JSON
                raise TripartiteError(f"the embedding endpoint answered with something that is not the OpenAI API's "
                                      f"JSON (a web page or a proxy's?) for model {self.name}; check OPENAI_BASE_URL: "
                                      "it should be the API's base, usually ending in /v1") from None
            if len(rows) != len(batch):
                raise TripartiteError(f"embedding endpoint returned {len(rows)} vectors for {len(batch)} texts")
            vectors.extend(row.embedding for row in rows)
        array = np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1)
        if len(texts):
            self.dimensions = array.shape[1]
        norms = np.linalg.norm(array, axis=1, keepdims=True)
        return array / np.clip(norms, 1e-12, None)

    def probe_dimensions(self) -> int:
        if self.dimensions is None:
            self.embed(["dimension probe"])
        return int(self.dimensions)

    def embed_query(self, text: str) -> list[float]:
        return self.embed([text])[0].tolist()


def make_embedder(settings):
    """The embedder the settings ask for."""
    if settings.embeddings.provider == "openai":
        embedder = OpenAIEmbedder(settings.embeddings.model, settings.llm.base_url, settings.llm.api_key)
    else:
        embedder = MiniLMEmbedder(settings.cache_dir, batch_size=settings.embeddings.batch_size)
    if settings.embeddings.latin_only is not None:
        embedder.latin_only = settings.embeddings.latin_only
    return embedder


def chunk_embedder(settings, offline: bool = False):
    """The chunks' embedder: the configured one, or the local model when offline."""
    return MiniLMEmbedder(settings.cache_dir) if offline else make_embedder(settings)


def embedding_dimensions(embedder) -> int:
    return embedder.dimensions if embedder.dimensions else embedder.probe_dimensions()


def as_graphrag_embedder(embedder):
    """Wrap one of ours for neo4j-graphrag's retrievers, which require their Embedder type."""
    from neo4j_graphrag.embeddings.base import Embedder

    class _Adapter(Embedder):
        def embed_query(self, text: str) -> list[float]:
            return embedder.embed([text])[0].tolist()

    return _Adapter()
