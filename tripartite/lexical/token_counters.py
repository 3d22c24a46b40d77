"""Token counters for chunk sizing: the embedding model's own tokenizer."""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from tripartite.infra.languages import text_language


class WordPieceCounter:
    """Word pieces of a local model (all-MiniLM-L6-v2 unless another is given), without the
    [CLS] and [SEP] the model adds."""

    def __init__(self, cache_dir: Path | None = None, embedder=None):
        if embedder is None:
            from tripartite.infra.embeddings import MiniLMEmbedder

            embedder = MiniLMEmbedder(cache_dir)
        self.name = embedder.name
        self.window = embedder.max_tokens
        self.tokenizer = embedder.tokenizer.__class__.from_str(embedder.tokenizer.to_str())  # a copy of its own
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


class RoutedCounter:
    """Each text counted by the tokenizer of the model that will read it (its language's: see
    LanguageRoutedEmbedder), so a chunk fits the window of the model it goes to."""

    def __init__(self, embedder):
        self.language = text_language
        self.counters = {language: WordPieceCounter(embedder=member) for language, member in embedder.members.items()}
        self.fallback = next(iter(self.counters.values()))
        self.name = embedder.name
        self.window = min(c.window for c in self.counters.values())

    def _for(self, text: str) -> WordPieceCounter:
        return self.counters.get(self.language(text), self.fallback)

    def name_for(self, texts: Sequence[str]) -> str:
        """The tokenizers a document's texts go to, named: an English document is counted as
        all-MiniLM-L6-v2 alone counted it, so its chunker signature (and chunks) stay as they were."""
        used = {self._for(text).name for text in texts}
        return "+".join(c.name for c in self.counters.values() if c.name in used) or self.fallback.name

    def count_many(self, texts: Sequence[str]) -> list[int]:
        counts = [0] * len(texts)
        groups: dict[int, list[int]] = {}
        counters = {}
        for i, text in enumerate(texts):
            counter = self._for(text)
            counters[id(counter)] = counter
            groups.setdefault(id(counter), []).append(i)
        for key, rows in groups.items():
            for i, n in zip(rows, counters[key].count_many([texts[i] for i in rows])):
                counts[i] = n
        return counts

    def split_long(self, text: str, max_tokens: int) -> list[tuple[str, int]]:
        return self._for(text).split_long(text, max_tokens)


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


def make_token_counter(settings, embedder=None):
    """Chunk sizes are counted in the embedding model's own tokens."""
    if settings.embeddings.provider == "openai":
        return TiktokenCounter()
    if embedder is None:
        from tripartite.infra.embeddings import local_embedder

        embedder = local_embedder(settings)
    return RoutedCounter(embedder) if hasattr(embedder, "members") else WordPieceCounter(embedder=embedder)
