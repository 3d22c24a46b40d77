"""Cypher script files, cypher/<part>/<name>.cypher: reading, splitting and running them.

A script is the text a user pastes into Neo4j Browser after setting its parameters with
:param. Its first line says what it does and how it runs, so no caller decides that:

    // read: ...    one read transaction (a one-statement script runs as an auto-commit query)
    // write: ...   one write transaction; write scripts may also share the caller's transaction
    // auto: ...    each statement as its own auto-commit query, as CALL ... IN TRANSACTIONS
                    needs (in the Browser: put :auto in front of each statement)

Splitting: a semicolon ends a statement only outside string literals ('...' and "..." with
backslash escapes), quoted identifiers (`...`), line comments (//) and block comments (/* */).
A line that starts with ':' is a Browser client command (for example `:param alpha => 0.9`):
the runner skips it, because the CLI passes the parameters itself.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from tripartite.infra.errors import TripartiteError
from tripartite.infra.paths import cypher_dir

MODES = ("read", "write", "auto")
HEADER = re.compile(r"^//\s*(?P<mode>read|write|auto):\s*\S")


class CypherScriptError(TripartiteError):
    pass


@dataclass(frozen=True)
class Statement:
    text: str
    line: int  # 1-based line of the statement's first character in its file


@dataclass(frozen=True)
class Script:
    name: str                      # e.g. "selection/score"
    mode: str                      # read | write | auto, from the first line
    statements: tuple[Statement, ...]


@lru_cache(maxsize=None)
def script(name: str) -> Script:
    """cypher/<name>.cypher, e.g. script("lexical/structure_edges"), with its run mode."""
    path = cypher_dir() / f"{name}.cypher"
    source = read_source(path)
    first = source.lstrip("\ufeff").split("\n", 1)[0]
    header = HEADER.match(first)
    if not header:
        raise CypherScriptError(f"{path}:1: the first line must say how the script runs and what it does, "
                                "as `// read: ...`, `// write: ...` or `// auto: ...`")
    statements = tuple(split_statements(source, origin=str(path)))
    if not statements:
        raise CypherScriptError(f"{path}: holds no Cypher statement")
    return Script(name, header["mode"], statements)


def read_source(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CypherScriptError(f"{path}: Cypher script not found") from None
    except UnicodeDecodeError:
        raise CypherScriptError(f"{path}: not UTF-8 text; save the script as UTF-8") from None


def read_script(path: Path) -> list[Statement]:
    """Read and split any .cypher file (a migration, say), with errors that name it."""
    return split_statements(read_source(path), origin=str(path))


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
