"""The triplet graph's prompts, all in one place: a chunk's extraction, a community's report and
an entity's summary. They are short on purpose: every token is paid once per chunk or community."""
from __future__ import annotations

import hashlib
import re
import unicodedata

from tripartite.kg.schema import REPORT_SHAPE, SUMMARY_SHAPE, TRIPLETS_SHAPE

EXTRACTION = """Extract the entities the passage names (people, organisations, products, technologies, methods, \
concepts, places, events) and the relations between them that it states.
{context}Passage ({where}):
\"\"\"
{text}
\"\"\"
Answer with JSON only: {shape}
Types in UpperCamelCase, relation types in UPPER_SNAKE_CASE, each description one short sentence taken \
from the passage. Write names as the passage does; add nothing it does not say."""

CONTEXT = "Names already used in similar passages, by type (reuse them when you mean the same thing): {names}\n"

REPORT = """Write a report on a community of entities from a knowledge graph: what it is about, its key \
entities and relations, and what matters most, using only the data below.
{data}
Answer with JSON only: {shape}
rating: how important the community is (0 to 10); 2 to 5 findings, each a one-line summary and a short \
explanation."""

SUMMARY = """These descriptions all concern the entity "{name}". Merge them into one description of at most \
{words} words that keeps every fact and resolves contradictions.
{descriptions}
Answer with JSON only: {shape}"""

# URLs, Markdown images, emphasis marks and pictographs carry no knowledge for the graph and cost
# tokens: dropped from prompts.
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_URL = re.compile(r"https?://\S+")
_EMPHASIS = re.compile(r"\*\*|__")


PASSAGE_RULES = "no images, URLs, emphasis, pictographs"  # part of the version: passage() shapes every prompt


def passage(text: str) -> str:
    """A chunk's text as the extraction prompt shows it: images, URLs, emphasis marks and
    pictographs out, link texts kept."""
    text = _EMPHASIS.sub("", _URL.sub("", _LINK.sub(r"\1", _IMAGE.sub("", text))))
    text = "".join(ch for ch in text if unicodedata.category(ch) != "So" and ch != "\ufe0f")
    return "\n".join(line.strip() for line in text.splitlines() if line.strip())


def extraction_prompt(text: str, where: str, context_names: list[str]) -> str:
    context = CONTEXT.format(names="; ".join(context_names)) if context_names else ""
    return EXTRACTION.format(context=context, where=where, text=passage(text), shape=TRIPLETS_SHAPE)


def report_prompt(data: str) -> str:
    return REPORT.format(data=data, shape=REPORT_SHAPE)


def summary_prompt(name: str, descriptions: list[str], words: int) -> str:
    listed = "\n".join(f"- {d}" for d in descriptions)
    return SUMMARY.format(name=name, words=words, descriptions=listed, shape=SUMMARY_SHAPE)


def version() -> str:
    """Changes when the extraction prompt does: chunks extracted with another one are redone."""
    return "triplets-" + hashlib.sha1((EXTRACTION + CONTEXT + PASSAGE_RULES).encode("utf-8")).hexdigest()[:8]
