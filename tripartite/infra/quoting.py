"""Text as a prompt quotes it. Every prompt numbers its sources [1], [2], ... and an answer
cites them so; a document's own citation numbers ("as shown in [12]", "[3, 4]", "[5-7]", "[2a]",
"［10］"), in its text or its headings, or a question's ("per guideline [3]"), would read as
those references and point an answer at the wrong chunk. They are quoted in parentheses
instead (which costs the same tokens, give or take one); so are link texts such as [1](url),
which would read the same. Left alone: intervals and indexes holding 0 ([0, 1], a[0]), and code
in backticks or fences within the text quoted (a fence a chunk boundary cuts cannot be seen)."""
from __future__ import annotations

import re

_NUMBER = r"\d+[a-z]?"
_CITATION = re.compile(rf"[\[\uff3b](\s*{_NUMBER}(?:\s*[,;\u2013\u2014-]\s*{_NUMBER}|\s+{_NUMBER})*\s*,?\s*)[\]\uff3d]")
_CODE = re.compile(r"```.*?```|~~~.*?~~~|`[^`\n]+`", re.DOTALL)  # where buf[16] is code, not a citation


def quote(text: str) -> str:
    """The text with its bracketed citation numbers in parentheses, outside code; nothing else
    changes."""
    if "[" not in text and "\uff3b" not in text:
        return text
    parts, last = [], 0
    for code in _CODE.finditer(text):
        parts += [_CITATION.sub(_parenthesised, text[last:code.start()]), code.group()]
        last = code.end()
    return "".join(parts) + _CITATION.sub(_parenthesised, text[last:])


def _parenthesised(found: re.Match) -> str:
    numbers = re.findall(r"\d+", found.group(1))
    return found.group() if any(int(n) == 0 for n in numbers) else f"({found.group(1)})"
