"""Token counters for chunk sizing: the embedding model's own tokenizer."""
from __future__ import annotations

from pathlib import Path
from typing import Sequence


class WordPieceCounter:
    """Word pieces of all-MiniLM-L6-v2, without the [CLS] and [SEP] the model adds."""

    name = "all-MiniLM-L6-v2"
    window = 256

    def __init__(self, cache_dir: Path):
        from tokenizers import Tokenizer

        from tripartite.model_assets import tokenizer_path

        self.tokenizer = Tokenizer.from_file(str(tokenizer_path(cache_dir)))
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()

    def count_many(self, texts: Sequence[str]) -> list[int]:
        encodings = self.tokenizer.encode_batch(list(texts), add_special_tokens=False)
        return [len(e.ids) for e in encodings]


class TiktokenCounter:
    """cl100k_base tokens, for OpenAI embedding models."""

    window = 8191

    def __init__(self, encoding: str = "cl100k_base"):
        from tripartite.tokens import encoding_for

        self.encoding = encoding_for(encoding)
        self.name = encoding

    def count_many(self, texts: Sequence[str]) -> list[int]:
        return [len(ids) for ids in self.encoding.encode_ordinary_batch(list(texts))]
