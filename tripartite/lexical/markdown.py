"""Markdown headings to a section tree (ATX `#` headings and setext underlines).

Headings inside fenced code blocks are text; a fence ends at a fence of its own kind (``` or
~~~, at least as long), so one kind may hold the other. HTML comments that start a line
(`<!-- ... -->`, as editors leave notes) are not text: Markdown shows nothing of them. YAML
front matter (a mapping between `---` lines at the very start) is skipped; anything else
between such lines is text. Text before the first heading becomes a section titled after the
document.
"""
from __future__ import annotations

import re
from functools import lru_cache

import yaml

from tripartite.lexical.model import ParsedSection

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_COMMENT = re.compile(r"^ {0,3}<!--")
# An editor's note is a few lines: a `<!--` that does not close within this many is kept as
# text, so a stray one cannot take the rest of a document with it.
COMMENT_LINES = 30


@lru_cache(maxsize=4)  # a reader asks for the title, the sections and the keys of one text
def _front_matter(text: str) -> tuple[tuple[str, ...], int]:
    """(the keys of the YAML front matter the text opens with, the line its text starts on):
    ((), 0) when it opens with none."""
    if not text.lstrip(" \t").startswith("---"):  # most texts: no need to split them into lines
        return (), 0
    lines = text.splitlines()
    if lines[0].strip() != "---":
        return (), 0
    for i in range(1, min(len(lines), 200)):
        if lines[i].strip() in ("---", "..."):
            found = _yaml_mapping(lines[1:i])
            return ((), 0) if found is None else (tuple(str(key) for key in found), i + 1)
    return (), 0


def _yaml_mapping(lines: list[str]) -> dict | None:
    """Front matter is keys and values; a paragraph between two rules is the document's text."""
    if not any(line.strip() for line in lines):
        return {}  # empty front matter, as Jekyll writes it
    try:
        found = yaml.safe_load("\n".join(lines))
    except (yaml.YAMLError, ValueError):  # ValueError: a date YAML cannot be, such as 2024-02-30
        return None
    return found if isinstance(found, dict) else None


def front_matter_keys(text: str) -> tuple[str, ...]:
    """The keys of the front matter the text opens with (ingest names them: they are not text)."""
    return _front_matter(text)[0]


def parse_headings(text: str) -> list[tuple[int, str, list[str]]]:
    """(level, title, body lines) in reading order; level 0 is text before any heading."""
    lines = text.splitlines()[_front_matter(text)[1]:]
    blocks: list[tuple[int, str, list[str]]] = [(0, "", [])]
    fence: str | None = None    # the fence that opened the code block we are in
    in_comment = False
    for i, line in enumerate(lines):
        if fence:
            blocks[-1][2].append(line)
            if _closes(line, fence):
                fence = None
            continue
        if in_comment or (_COMMENT.match(line) and any("-->" in later for later in lines[i:i + COMMENT_LINES])):
            in_comment = "-->" not in line
            # A comment ends a paragraph as a blank line does; what follows its end is text.
            line = line.split("-->", 1)[1] if not in_comment else ""
            if not line.strip():
                blocks[-1][2].append("")
                continue
        opened = _FENCE.match(line)
        if opened and not (opened.group(1)[0] == "`" and "`" in opened.group(2)):
            fence = opened.group(1)
            blocks[-1][2].append(line)
            continue
        atx = _ATX.match(line)
        if atx:
            blocks.append((len(atx.group(1)), (atx.group(2) or "").strip(), []))
            continue
        setext = _SETEXT.match(line)
        body = blocks[-1][2]
        if setext and body and body[-1].strip() and not body[-1].lstrip().startswith(("-", "*", "+", "|", ">")) \
                and (i < 1 or lines[i - 1].strip()) and _is_paragraph_line(body):
            title = body.pop().strip()
            blocks.append((1 if setext.group(1)[0] == "=" else 2, title, []))
            continue
        body.append(line)
    return blocks


def _closes(line: str, fence: str) -> bool:
    """A closing fence: the opening one's character, at least as many, nothing after."""
    found = _FENCE.match(line)
    return bool(found) and found.group(1)[0] == fence[0] and len(found.group(1)) >= len(fence) \
        and not found.group(2).strip()


def _is_paragraph_line(body: list[str]) -> bool:
    """A setext underline only makes a heading of a single-line paragraph."""
    return len(body) < 2 or not body[-2].strip()


def markdown_document(text: str, fallback_title: str) -> tuple[str, list[ParsedSection]]:
    """The document's title (its first level-1 heading, else `fallback_title`) and its
    sections, from one pass over its headings (a 50 MB file takes seconds a pass)."""
    blocks = parse_headings(text)
    title = _first_title(blocks) or fallback_title
    return title, _sections(blocks, title)


def markdown_sections(text: str, document_title: str) -> list[ParsedSection]:
    return _sections(parse_headings(text), document_title)


def _sections(blocks: list[tuple[int, str, list[str]]], document_title: str) -> list[ParsedSection]:
    sections: list[ParsedSection] = []
    stack: list[int] = []  # indexes of the open ancestors
    for level, title, body_lines in blocks:
        body = "\n".join(body_lines).strip()
        if level == 0:
            if body:
                sections.append(ParsedSection(document_title, 1, (document_title,), None, body))
            continue
        while stack and sections[stack[-1]].level >= level:
            stack.pop()
        parent = stack[-1] if stack else None
        path = (sections[parent].path if parent is not None else ()) + (title or f"(untitled level {level})",)
        sections.append(ParsedSection(path[-1], level, path, parent, body))
        stack.append(len(sections) - 1)
    return sections


def first_heading(text: str) -> str | None:
    return _first_title(parse_headings(text))


def _first_title(blocks: list[tuple[int, str, list[str]]]) -> str | None:
    for level, title, _ in blocks:
        if level == 1 and title:
            return title
    return None
