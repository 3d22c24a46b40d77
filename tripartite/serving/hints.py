"""The hints of errors and notes, said to an agent: the package words them for someone at the
command line ("see `tripartite objects list`", "run `tripartite select`"), and an agent has
tools instead. What a tool does is named as that tool; what only whoever runs the server can do
(migrate, analyze, select, ingest, ...) is asked of the operator, with the command to give them."""
from __future__ import annotations

import re

OPERATOR = " (the `tripartite` commands are for the operator of this server; no tool runs them)"

# (pattern, replacement), applied in order: the specific wordings first, then the commands alone
TOOLS = [
    (r"see `tripartite objects list`", "call list_objects for the ids"),
    (r"`tripartite objects list`", "list_objects"),
    (r"see `tripartite ontology list`", "call list_ontologies"),
    (r"`tripartite ontology list`", "list_ontologies"),
    (r"`tripartite ontology find(?: [^`]*)?`", "find_concepts"),
    (r"`tripartite prompt(?: [^`]*)?`", "object_prompt"),
    (r"`tripartite (?:search|ask)(?: [^`]*)?`", "search"),
    (r"`tripartite trace(?: [^`]*)?`", "trace_chunk"),
    (r"give --max-tokens", "give max_tokens"),
    (r"give --map-tokens ([\d,]+)", r"ask the operator to set [search] map_tokens to \1 in tripartite.toml"),
    (r"\b[Rr]un (`tripartite )", r"ask the operator to run \1"),
]


def one_line(exc: BaseException) -> str:
    """An error as one line, secrets masked and its hints said in tools."""
    from tripartite.infra.secrets import redact

    lines = redact(str(exc)).strip().splitlines()
    return for_agents(lines[0] if lines else type(exc).__name__)


def for_agents(text: str | None) -> str | None:
    """`text` with its command-line hints said in tools and arguments."""
    if not text:
        return text
    for pattern, replacement in TOOLS:
        text = re.sub(pattern, replacement, text)
    if "`tripartite " in text and "the operator" not in text:
        text += OPERATOR
    return text
