"""The triplet graph's LLM tasks and the answer shapes they must return: a chunk's entities and
relations, a community's report, an entity's summarised descriptions."""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from tripartite.infra.llm.schemas import array, budget, number, obj, string
from tripartite.infra.llm.tasks import InvalidAnswer, load_json

TRIPLETS_SCHEMA = "triplets-v1"
TRIPLETS_SHAPE = ('{"entities": [{"name": "...", "type": "...", "description": "..."}], '
                  '"relations": [{"source": "...", "target": "...", "type": "...", "description": "..."}]}')
REPORT_SCHEMA = "community-report-v1"
REPORT_SHAPE = ('{"title": "...", "summary": "...", "rating": 0-10, "rating_explanation": "...", '
                '"findings": [{"summary": "...", "explanation": "..."}]}')
SUMMARY_SCHEMA = "entity-summary-v1"
SUMMARY_SHAPE = '{"description": "..."}'

# The answers' bounds: what a JSON schema enforces where the endpoint honours one, and what
# max_tokens is sized to (names and types short, descriptions a sentence or two).
NAME_CHARS, TYPE_CHARS, DESCRIPTION_CHARS = 60, 30, 200
MAX_ENTITIES, MAX_RELATIONS = 12, 15
ENTITY = obj(name=string(NAME_CHARS), type=string(TYPE_CHARS), description=string(DESCRIPTION_CHARS))
RELATION = obj(source=string(NAME_CHARS), target=string(NAME_CHARS), type=string(TYPE_CHARS),
               description=string(DESCRIPTION_CHARS))
TRIPLETS_JSON_SCHEMA = obj(entities=array(ENTITY, MAX_ENTITIES), relations=array(RELATION, MAX_RELATIONS))
REPORT_JSON_SCHEMA = obj(title=string(120), summary=string(800), rating=number(0, 10),
                         rating_explanation=string(300),
                         findings=array(obj(summary=string(200), explanation=string(500)), 5))
SUMMARY_CHARS = 900
SUMMARY_JSON_SCHEMA = obj(description=string(SUMMARY_CHARS))


def chars_as_tokens(chars: int) -> int:
    """A bound in characters as tokens: about one per three characters (English runs near
    four; Chinese and Japanese near one, in fields that are rarely full)."""
    return chars // 3 + 4


TRIPLETS_ANSWER_TOKENS = budget(MAX_ENTITIES * chars_as_tokens(NAME_CHARS + TYPE_CHARS + DESCRIPTION_CHARS)
                                + MAX_RELATIONS * chars_as_tokens(2 * NAME_CHARS + TYPE_CHARS + DESCRIPTION_CHARS))
REPORT_ANSWER_TOKENS = budget(chars_as_tokens(120 + 800 + 300 + 5 * 700) + 40)
SUMMARY_ANSWER_TOKENS = budget(chars_as_tokens(SUMMARY_CHARS) + 10)

_SPACES = re.compile(r"\s+")
_EDGES = re.compile(r"^[\W_]+|[\W_]+$", re.UNICODE)
_NOT_TYPE = re.compile(r"[^\w]+", re.UNICODE)


def normal_name(name: str) -> str:
    """The form two mentions of one entity share: NFC, lowercase, single spaces, no edge punctuation."""
    return _EDGES.sub("", _SPACES.sub(" ", unicodedata.normalize("NFC", name).strip().lower()))


# Labels of the other parts of the graph (ontology, lexical, objects, selection, communities and
# the project's bookkeeping): an entity type never becomes one of them, or an entity typed
# "Concept" would pass for an ontology concept (migration V010 repairs graphs made before).
RESERVED_LABELS = frozenset({
    "Concept", "ConceptClass", "Ontology", "Document", "Section", "Chunk", "Object", "Evidence", "Community",
    "ReportSentence", "ScoreDistribution", "ScoreBlock", "ScoreBin", "SelectionState", "InputsVersion", "TunedSelection",
    "AnalysisRun",
})


def type_label(kind: str) -> str:
    """An entity type as a label: UpperCamelCase words ('programming language' -> ProgrammingLanguage);
    a label of another part of the graph gets "Entity" appended (Concept -> ConceptEntity)."""
    words = [w.strip("_") for w in _NOT_TYPE.split(unicodedata.normalize("NFC", kind or ""))]
    label = "".join(w[:1].upper() + w[1:] for w in words if w)[:40] or "Thing"
    return f"{label}Entity" if label in RESERVED_LABELS else label


# Relationship types of the other parts of the graph: a relation between two entities never takes
# one, or a model's "mentioned in" or "concerns" would be counted as the pre-analysis' edges and a
# "parent" walked as the community hierarchy (migration V017 repairs graphs made before).
RESERVED_RELATION_TYPES = frozenset({
    "FROM_DOCUMENT", "NEXT_CHUNK", "HAS_SECTION", "HAS_SUBSECTION", "NEXT_SECTION", "HAS_CHUNK",
    "IN_ONTOLOGY", "IN_CLASS", "BROADER", "MENTIONED_IN", "CONCERNS",
    "FROM_CHUNK", "IS_CONCEPT", "IN_COMMUNITY", "PARENT", "HAS_SENTENCE",
})


def relation_type(kind: str) -> str:
    """A relation type as a relationship type: UPPER_SNAKE_CASE ('works with' -> WORKS_WITH); a
    type of another part of the graph gets "_RELATION" appended (CONCERNS -> CONCERNS_RELATION)."""
    words = [w for w in _NOT_TYPE.split(unicodedata.normalize("NFC", kind or "")) if w]
    name = "_".join(w.upper() for w in words)[:40] or "RELATED_TO"
    return f"{name}_RELATION" if name in RESERVED_RELATION_TYPES else name


def entity_key(name: str, kind: str) -> str:
    """Entities with the same normalised name and type are one node."""
    return f"{normal_name(name)}|{type_label(kind)}"


@dataclass(frozen=True)
class TripletTask:
    """One chunk's extraction: the prompt, and what an offline provider works from."""
    stage: str          # "kg"
    item_id: str        # the chunk id
    prompt: str
    text: str
    known: tuple[str, ...]  # entity names of the context, for an offline provider to reuse

    schema = TRIPLETS_SCHEMA
    shape = TRIPLETS_SHAPE
    json_schema = TRIPLETS_JSON_SCHEMA
    answer_tokens = TRIPLETS_ANSWER_TOKENS

    def parse(self, content: str) -> dict:
        return parse_triplets(content)


def _text(item: dict, key: str, where: str, required: bool = True) -> str:
    value = item.get(key, "")
    if value is None:
        value = ""
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise InvalidAnswer(f'"{key}" of {where} must be a string')
    value = str(value).strip()
    if required and not value:
        raise InvalidAnswer(f'{where} has no "{key}"')
    return value


def parse_triplets(content: str) -> dict:
    """{"entities": [{name, type, description}], "relations": [{source, target, type, description}]};
    relations may only join entities of the answer (by name)."""
    data = load_json(content)
    if not isinstance(data, dict) or not isinstance(data.get("entities", []), list) \
            or not isinstance(data.get("relations", []), list):
        raise InvalidAnswer('the answer must be an object with "entities" and "relations" lists')
    entities, names = [], set()
    for n, item in enumerate(data.get("entities") or [], start=1):
        if not isinstance(item, dict):
            raise InvalidAnswer(f"entity {n} must be an object")
        name = _text(item, "name", f"entity {n}")
        entities.append({"name": name, "type": _text(item, "type", f"entity {name!r}", required=False) or "Thing",
                         "description": _text(item, "description", f"entity {name!r}", required=False)})
        names.add(normal_name(name))
    relations = []
    for n, item in enumerate(data.get("relations") or [], start=1):
        if not isinstance(item, dict):
            raise InvalidAnswer(f"relation {n} must be an object")
        source, target = _text(item, "source", f"relation {n}"), _text(item, "target", f"relation {n}")
        missing = [x for x in (source, target) if normal_name(x) not in names]
        if missing:
            raise InvalidAnswer(f"relation {n} names {missing[0]!r}, which is not among the entities; list it there")
        relations.append({"source": source, "target": target,
                          "type": _text(item, "type", f"relation {n}", required=False) or "RELATED_TO",
                          "description": _text(item, "description", f"relation {n}", required=False)})
    return {"entities": entities, "relations": relations}


def parse_report(content: str) -> dict:
    data = load_json(content)
    if not isinstance(data, dict):
        raise InvalidAnswer("the answer must be an object")
    title, summary = _text(data, "title", "the report"), _text(data, "summary", "the report")
    rating = data.get("rating", 0)
    if not isinstance(rating, (int, float)) or isinstance(rating, bool) or not 0 <= rating <= 10:
        raise InvalidAnswer('"rating" must be a number from 0 to 10')
    findings = data.get("findings") or []
    if not isinstance(findings, list) or not all(isinstance(f, dict) for f in findings):
        raise InvalidAnswer('"findings" must be a list of objects with "summary" and "explanation"')
    return {"title": title, "summary": summary, "rating": float(rating),
            "rating_explanation": _text(data, "rating_explanation", "the report", required=False),
            "findings": [{"summary": _text(f, "summary", "a finding"),
                          "explanation": _text(f, "explanation", "a finding", required=False)} for f in findings]}


def parse_summary(content: str) -> str:
    data = load_json(content)
    if not isinstance(data, dict):
        raise InvalidAnswer('the answer must be an object with a "description"')
    return _text(data, "description", "the answer")
