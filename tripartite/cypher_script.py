"""Reading .cypher files: split a script into statements.

A semicolon ends a statement only outside string literals ('...' and "..." with backslash
escapes), quoted identifiers (`...`), line comments (//) and block comments (/* */).
A line that starts with ':' is a Neo4j Browser client command (for example `:param alpha
=> 0.9`); it lets a script run unchanged in the Browser, and the runner skips it because
the CLI passes parameters itself.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tripartite.errors import TripartiteError


class CypherScriptError(TripartiteError):
    pass


@dataclass(frozen=True)
class Statement:
    text: str
    line: int  # 1-based line of the statement's first character in its file


def split_statements(source: str, origin: str = "<script>") -> list[Statement]:
    """Split `source` into statements; comment-only pieces are dropped."""
    statements: list[Statement] = []
    current: list[str] = []
    start_line = 1
    line = 1
    i = 0
    n = len(source)
    at_line_start = True
    has_code = False  # the current piece holds something besides comments and blanks

    def flush() -> None:
        nonlocal current, has_code
        text = "".join(current).strip()
        if has_code and text:
            statements.append(Statement(text, start_line))
        current = []
        has_code = False

    while i < n:
        ch = source[i]
        if at_line_start and ch == ":" and not has_code:
            end = source.find("\n", i)
            end = n if end == -1 else end
            i = end  # drop the client command; the newline is handled below
            continue
        if ch in " \t\r":
            current.append(ch)
            i += 1
            continue
        if ch == "\n":
            current.append(ch)
            line += 1
            i += 1
            at_line_start = True
            continue
        at_line_start = False
        if source.startswith("//", i):
            end = source.find("\n", i)
            end = n if end == -1 else end
            current.append(source[i:end])
            i = end
            continue
        if source.startswith("/*", i):
            end = source.find("*/", i + 2)
            if end == -1:
                raise CypherScriptError(f"{origin}:{line}: block comment is never closed; add the missing */")
            chunk = source[i:end + 2]
            current.append(chunk)
            line += chunk.count("\n")
            i = end + 2
            continue
        if ch in "'\"`":
            end = _end_of_quoted(source, i)
            if end == -1:
                kind = "quoted identifier" if ch == "`" else "string"
                raise CypherScriptError(f"{origin}:{line}: {kind} opened with {ch} is never closed; add the missing {ch}")
            if not has_code:
                start_line = line
            chunk = source[i:end + 1]
            current.append(chunk)
            line += chunk.count("\n")
            has_code = True
            i = end + 1
            continue
        if ch == ";":
            flush()
            i += 1
            continue
        if not has_code:
            start_line = line
        has_code = True
        current.append(ch)
        i += 1
    flush()
    return statements


def _end_of_quoted(source: str, start: int) -> int:
    """Index of the quote closing the literal opened at `start`, or -1."""
    quote = source[start]
    i = start + 1
    n = len(source)
    while i < n:
        ch = source[i]
        if ch == "\\" and quote != "`":
            i += 2
            continue
        if ch == quote:
            if quote == "`" and i + 1 < n and source[i + 1] == "`":
                i += 2  # `` is an escaped backtick inside an identifier
                continue
            return i
        i += 1
    return -1


def read_script(path: Path) -> list[Statement]:
    """Read and split a .cypher file, with errors that name it."""
    try:
        source = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CypherScriptError(f"{path}: Cypher script not found") from None
    except UnicodeDecodeError:
        raise CypherScriptError(f"{path}: not UTF-8 text; save the script as UTF-8") from None
    return split_statements(source, origin=str(path))
