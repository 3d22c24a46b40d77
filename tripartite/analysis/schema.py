"""The pre-analysis task and the one answer shape every extraction call must return."""
from __future__ import annotations

from dataclasses import dataclass

from tripartite.infra.llm.providers import ConceptInfo
from tripartite.infra.llm.tasks import InvalidAnswer, load_json

SCHEMA_VERSION = "extracts-v1"
SCHEMA_TEXT = '{"extracts": [{"concept_id": "<id>", "extract": "<text or empty>"}]}'


@dataclass(frozen=True)
class ExtractionTask:
    stage: str                      # "chunk" or "object"
    item_id: str                    # the chunk or object id
    prompt: str                     # the exact prompt an LLM gets (and the cache key)
    text: str                       # the text itself, for the extractive provider
    concepts: tuple[ConceptInfo, ...]

    schema = SCHEMA_VERSION
    shape = SCHEMA_TEXT

    def parse(self, content: str) -> dict[str, str]:
        return parse_extracts(content, [c.id for c in self.concepts])


def parse_extracts(content: str, concept_ids: list[str]) -> dict[str, str]:
    """concept id -> extract ('' when the text says nothing about it); InvalidAnswer otherwise."""
    data = load_json(content)
    if not isinstance(data, dict) or not isinstance(data.get("extracts"), list):
        raise InvalidAnswer('the answer must be an object with an "extracts" list')
    wanted = set(concept_ids)
    found: dict[str, str] = {}
    for item in data["extracts"]:
        if not isinstance(item, dict) or not isinstance(item.get("concept_id"), str):
            raise InvalidAnswer('each extract must be an object with a string "concept_id"')
        extract = item.get("extract", "")
        if extract is None:
            extract = ""
        if not isinstance(extract, str):
            raise InvalidAnswer(f'"extract" of {item["concept_id"]} must be a string')
        if item["concept_id"] not in wanted:
            raise InvalidAnswer(f"unknown concept_id {item['concept_id']!r}; use only the listed ids")
        found[item["concept_id"]] = extract.strip()
    return {cid: found.get(cid, "") for cid in concept_ids}
