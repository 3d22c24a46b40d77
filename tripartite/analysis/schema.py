"""The pre-analysis task and the one answer shape every extraction call must return.

Models, small ones most, name a concept by its name, a synonym, its id without the ontology
prefix, or copy the template's `<id>`. A name or synonym is mapped to its id; an id that is
none of the offered ones is dropped and counted (the rest of the answer stands), unless
nothing in the answer is usable. Where the endpoint honours JSON schemas, the ids are an enum
of the offered ones and each extract has a maximum length, so this rarely happens.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from tripartite.ontology.concept import ConceptInfo
from tripartite.infra.llm.schemas import array, budget, enum, obj, string
from tripartite.infra.llm.tasks import InvalidAnswer, Parsed, load_json
from tripartite.infra.tokens import count_tokens

SCHEMA_VERSION = "extracts-v1"
SCHEMA_TEXT = '{"extracts": [{"concept_id": "<id>", "extract": "<text or empty>"}]}'
EXTRACT_CHARS = 600      # an extract's maximum length in the JSON schema
EXTRACT_TOKENS = 700     # ... and in tokens, for any script (a CJK character can be more than one)


@dataclass(frozen=True)
class ExtractionTask:
    stage: str                      # "chunk" or "object"
    item_id: str                    # the chunk or object id
    prompt: str                     # the exact prompt an LLM gets (and the cache key)
    text: str                       # the text itself, for the extractive provider
    concepts: tuple[ConceptInfo, ...]

    schema = SCHEMA_VERSION
    shape = SCHEMA_TEXT

    def parse(self, content: str) -> Parsed:
        return parse_extracts(content, list(self.concepts))

    @property
    def json_schema(self) -> dict:
        item = obj(concept_id=enum([c.id for c in self.concepts]), extract=string(EXTRACT_CHARS))
        return obj(extracts=array(item, max_items=len(self.concepts)))

    @property
    def answer_tokens(self) -> int:
        """Each offered concept's id and an extract no longer than the text it comes from."""
        per_extract = min(EXTRACT_TOKENS, count_tokens(self.text))
        return budget(12 + sum(count_tokens(c.id) + 12 + per_extract for c in self.concepts))


def _normal(label: str) -> str:
    return re.sub(r"[\W_]+", " ", unicodedata.normalize("NFKC", label).casefold()).strip()


def concept_lookup(concepts: list[ConceptInfo]) -> dict[str, str]:
    """How a model may name a concept -> its id: the id, the id without its ontology prefix,
    the name and each synonym, compared without case and punctuation."""
    lookup: dict[str, str] = {}
    for c in concepts:
        for label in (c.id, c.id.rsplit(":", 1)[-1], c.name, *c.synonyms):
            lookup.setdefault(_normal(label), c.id)
    return lookup


def parse_extracts(content: str, concepts: list[ConceptInfo] | list[str]) -> Parsed:
    """concept id -> extract ('' when the text says nothing about it), with how many items
    named no offered concept; InvalidAnswer when the answer is malformed or none of its items
    names an offered concept."""
    concepts = [c if isinstance(c, ConceptInfo) else ConceptInfo(c, c, (), "") for c in concepts]
    data = load_json(content)
    if not isinstance(data, dict) or not isinstance(data.get("extracts"), list):
        raise InvalidAnswer('the answer must be an object with an "extracts" list')
    lookup = concept_lookup(concepts)
    found: dict[str, str] = {}
    dropped, unknown = 0, []
    for item in data["extracts"]:
        if not isinstance(item, dict) or not isinstance(item.get("concept_id"), str):
            raise InvalidAnswer('each extract must be an object with a string "concept_id"')
        extract = item.get("extract", "")
        if extract is None:
            extract = ""
        if not isinstance(extract, str):
            raise InvalidAnswer(f'"extract" of {item["concept_id"]} must be a string')
        concept_id = lookup.get(_normal(item["concept_id"]))
        if concept_id is None:
            dropped += 1
            unknown.append(item["concept_id"])
            continue
        if extract.strip() or concept_id not in found:
            found[concept_id] = extract.strip()
    if unknown and not found:
        raise InvalidAnswer(f"unknown concept_id {unknown[0]!r}; use only the listed ids")
    return Parsed({c.id: found.get(c.id, "") for c in concepts}, dropped)
