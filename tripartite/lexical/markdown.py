"""Markdown headings to a section tree (ATX `#` headings and setext underlines).

Headings inside fenced code blocks are text. YAML front matter (a mapping between `---` lines
at the very start) is skipped; anything else between such lines is text. Text before the first
heading becomes a section titled after the document.
"""
from __future__ import annotations

import re

import yaml

from tripartite.lexical.model import ParsedSection

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")


def _strip_front_matter(lines: list[str]) -> list[str]:
    if lines and lines[0].strip() == "---":
        for i in range(1, min(len(lines), 200)):
            if lines[i].strip() in ("---", "..."):
                return lines[i + 1:] if _is_yaml_mapping(lines[1:i]) else lines
    return lines


def _is_yaml_mapping(lines: list[str]) -> bool:
    """Front matter is keys and values; a paragraph between two rules is the document's text."""
    if not any(line.strip() for line in lines):
        return True  # empty front matter, as Jekyll writes it
    try:
        return isinstance(yaml.safe_load("\n".join(lines)), dict)
    except yaml.YAMLError:
        return False


def parse_headings(text: str) -> list[tuple[int, str, list[str]]]:
    """(level, title, body lines) in reading order; level 0 is text before any heading."""
    lines = _strip_front_matter(text.splitlines())
    blocks: list[tuple[int, str, list[str]]] = [(0, "", [])]
    in_code = False
    for i, line in enumerate(lines):
        if _FENCE.match(line):
            in_code = not in_code
            blocks[-1][2].append(line)
            continue
        if in_code:
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


def _is_paragraph_line(body: list[str]) -> bool:
    """A setext underline only makes a heading of a single-line paragraph."""
    return len(body) < 2 or not body[-2].strip()


def markdown_sections(text: str, document_title: str) -> list[ParsedSection]:
    sections: list[ParsedSection] = []
    stack: list[int] = []  # indexes of the open ancestors
    for level, title, body_lines in parse_headings(text):
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
    for level, title, _ in parse_headings(text):
        if level == 1 and title:
            return title
    return None
