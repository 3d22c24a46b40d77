"""The extraction prompts of the pre-analysis: the default templates, a plugin's own
(<plugin folder>/prompts/chunk.md and object.md, stored with its ontology when it is loaded),
and how a template is filled."""
from __future__ import annotations

import hashlib

from tripartite.ontology.concept import ConceptInfo
from tripartite.analysis.schema import SCHEMA_TEXT, SCHEMA_VERSION
from tripartite.ontology.plugins import available_plugins

DEFAULT_CHUNK_PROMPT = """You read one passage of a reference document. For each concept listed below, write what the
passage says about that concept: keep every fact, number and condition, drop everything else,
in short plain sentences. If the passage says nothing about a concept, return an empty
extract for it. Do not add knowledge that is not in the passage.

Concepts:
{concepts}

Passage (from "{document}", section "{section}"):
\"\"\"
{text}
\"\"\"

Answer with JSON only: """ + SCHEMA_TEXT

DEFAULT_OBJECT_PROMPT = """You read the description of one case. For each concept listed below, write what it says
about the case with respect to that concept, keeping findings, values, timing and denials.
If it says nothing about a concept, return an empty extract for it. Do not guess.

Concepts:
{concepts}

Case ({kind} "{object_id}"):
\"\"\"
{text}
\"\"\"

Answer with JSON only: """ + SCHEMA_TEXT




def render(template: str, **values: str) -> str:
    # str.format would trip over the JSON braces in the templates.
    for name, value in values.items():
        template = template.replace("{" + name + "}", value)
    return template


def concept_lines(concepts: list[ConceptInfo]) -> str:
    return "\n".join(f"- {c.id}: {c.name}. {c.description}".rstrip() for c in concepts)


def plugin_templates(graph) -> dict[str, dict[str, str]]:
    """Each loaded ontology's own prompts by stage, as stored when it was loaded; for one an
    older version loaded (nothing stored), the shipped plugin's of its name."""
    shipped = {p.name: p for p in available_plugins()}
    found: dict[str, dict[str, str]] = {}
    for row in graph.run("ontology/prompt_templates"):
        if row["chunk"] is None and row["object"] is None:
            plugin = shipped.get(row["ontology"])
            found[row["ontology"]] = plugin.templates() if plugin else {}
        else:
            found[row["ontology"]] = {stage: row[stage] for stage in ("chunk", "object") if row[stage]}
    return found


def prompt_version(template: str) -> str:
    return f"{SCHEMA_VERSION}/{hashlib.sha1(template.encode()).hexdigest()[:8]}"
