"""Document text as a prompt quotes it. Every prompt numbers its sources [1], [2], ... and an
answer cites them so; a document's own citation numbers ("as shown in [12]", "[3, 4]",
"[5-7]") would read as those references and point an answer at the wrong chunk. They are quoted
in parentheses instead, which costs the same tokens."""
from __future__ import annotations

import re

_CITATION = re.compile(r"\[(\s*\d+(?:\s*[,;\u2013\u2014-]\s*\d+)*\s*)\]")


def quote(text: str) -> str:
    """The text with its bracketed citation numbers in parentheses; nothing else changes."""
    return _CITATION.sub(r"(\1)", text) if "[" in text else text
