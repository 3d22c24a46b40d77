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

        from tripartite.infra.model_assets import tokenizer_path

        self.tokenizer = Tokenizer.from_file(str(tokenizer_path(cache_dir)))
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()

    def count_many(self, texts: Sequence[str]) -> list[int]:
        encodings = self.tokenizer.encode_batch(list(texts), add_special_tokens=False)
        return [len(e.ids) for e in encodings]

    def split_long(self, text: str, max_tokens: int) -> list[tuple[str, int]]:
        """Cut `text` into pieces of at most `max_tokens` word pieces, between words."""
        encoding = self.tokenizer.encode(text, add_special_tokens=False)
        words, offsets = encoding.word_ids, encoding.offsets
        pieces: list[tuple[str, int]] = []
        start_token = 0
        while start_token < len(words):
            end_token = min(start_token + max_tokens, len(words))
            if end_token < len(words):
                # Back up to the first token of a word, so no word is cut in half.
                cut = end_token
                while cut > start_token and words[cut] == words[cut - 1]:
                    cut -= 1
                end_token = cut if cut > start_token else end_token
            begin = offsets[start_token][0]
            end = offsets[end_token][0] if end_token < len(words) else len(text)
            pieces.append((text[begin:end].strip(), end_token - start_token))
            start_token = end_token
        return [p for p in pieces if p[0]]


class TiktokenCounter:
    """cl100k_base tokens, for OpenAI embedding models."""

    window = 8191

    def __init__(self, encoding: str = "cl100k_base"):
        from tripartite.infra.tokens import encoding_for

        self.encoding = encoding_for(encoding)
        self.name = encoding

    def count_many(self, texts: Sequence[str]) -> list[int]:
        return [len(ids) for ids in self.encoding.encode_ordinary_batch(list(texts))]

    def split_long(self, text: str, max_tokens: int) -> list[tuple[str, int]]:
        words = text.split()
        pieces: list[tuple[str, int]] = []
        current: list[str] = []
        total = 0
        for word, tokens in zip(words, self.count_many(words)):
            tokens = min(tokens, max_tokens)
            if current and total + tokens > max_tokens:
                pieces.append((" ".join(current), total))
                current, total = [], 0
            current.append(word)
            total += tokens
        if current:
            pieces.append((" ".join(current), total))
        return pieces


def make_token_counter(settings):
    """Chunk sizes are counted in the embedding model's own tokens."""
    if settings.embeddings.provider == "openai":
        return TiktokenCounter()
    return WordPieceCounter(settings.cache_dir)
