"""The parameters a Cypher script uses: what a caller must pass, and all it may pass.

A parameter is `$name` (or `$`quoted name``, or `$0`) outside string literals, quoted
identifiers and comments. `$row.id` uses $row; `$(expression)` is a dynamic label or type,
not a parameter. Browser client commands (`:param x => 1`) are dropped as the runner drops
them (tripartite/infra/cypher.py), and `:param` in a comment is a comment.
"""
from __future__ import annotations

from tripartite.infra.cypher import _end_of_quoted, split_statements


def statement_parameters(text: str) -> list[str]:
    """The parameters of one statement, in order of first use."""
    found: dict[str, None] = {}
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end == -1 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end == -1 else end + 2
        elif ch in "'\"`":
            end = _end_of_quoted(text, i)
            i = n if end == -1 else end + 1
        elif ch == "$":
            name, i = _parameter_at(text, i + 1)
            if name is not None:
                found.setdefault(name)
        else:
            i += 1
    return list(found)


def _parameter_at(text: str, i: int) -> tuple[str | None, int]:
    """The parameter name starting right after a `$` at i-1, and where scanning goes on."""
    n = len(text)
    if i < n and text[i] == "`":
        end = _end_of_quoted(text, i)
        if end == -1:
            return None, n
        return text[i + 1:end].replace("``", "`"), end + 1
    start = i
    while i < n and (text[i].isalnum() or text[i] == "_"):
        i += 1
    return (text[start:i] or None), i  # None: `$(` (a dynamic label) or a stray `$`


def parameters(source: str, origin: str = "<script>") -> list[str]:
    """Every parameter of a script's source, over all its statements, in order of first use."""
    found: dict[str, None] = {}
    for statement in split_statements(source, origin=origin):
        for name in statement_parameters(statement.text):
            found.setdefault(name)
    return list(found)
