"""Reading and validating an ontology YAML file.

File format (the shape of ../shared/corpus/ontology.yaml):

    name: cardiology            # the ontology's id; namespaces its concept ids
    version: 1
    description: ...
    classes:
      - id: disease
        name: Diseases
        concepts:
          - {id: hypertension, name: Hypertension, synonyms: [...], description: ..., broader: [...]}

A concept may also give `related:` (looser synonyms, kept apart from the exact `synonyms`) and
`source:` (its id in the ontology it was imported from); `ontology import` writes both.
`seen:` (where `ontology draft` found it) is for the curator and not loaded.

Concepts may also be listed at the top level under `concepts:`, each with `class: <class id>`.
Every problem is an OntologyError naming the file and the fix; nothing is written for an
ontology that fails validation.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from tripartite.infra.errors import TripartiteError

SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: imports hold thousands
ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")
CONCEPT_KEYS = {"id", "name", "synonyms", "related", "description", "broader", "class", "source", "seen"}
CLASS_KEYS = {"id", "name", "description", "concepts", "source"}
TOP_KEYS = {"name", "version", "description", "classes", "concepts"}


class OntologyError(TripartiteError):
    pass


@dataclass(frozen=True)
class ConceptSpec:
    key: str
    name: str
    class_key: str
    synonyms: tuple[str, ...] = ()
    description: str = ""
    broader: tuple[str, ...] = ()
    related: tuple[str, ...] = ()   # related (looser) synonyms, kept apart from the exact ones
    source: str = ""                # the term's id in the ontology it was imported from


@dataclass(frozen=True)
class ClassSpec:
    key: str
    name: str
    description: str = ""


@dataclass(frozen=True)
class Ontology:
    name: str
    version: str
    description: str
    source: str
    checksum: str
    classes: tuple[ClassSpec, ...]
    concepts: tuple[ConceptSpec, ...]

    def concept_id(self, key: str) -> str:
        return f"{self.name}:{key}"

    def class_id(self, key: str) -> str:
        return f"{self.name}:{key}"


def _fail(path: Path, message: str) -> OntologyError:
    return OntologyError(f"{path}: {message}")


def text_value(value: Any, path: Path, where: str, required: bool = False) -> str:
    if value is None:
        if required:
            raise _fail(path, f"{where} is missing; add it")
        return ""
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise _fail(path, f"{where} must be text, not {type(value).__name__}")
    return str(value).strip()


def identifier(value: Any, path: Path, where: str) -> str:
    text = text_value(value, path, where, required=True)
    if not ID.match(text):
        raise _fail(path, f"{where} {text!r} is not a valid id; use letters, digits, '_', '-' or '.'")
    return text


def _string_list(value: Any, path: Path, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, (str, int, float)) for v in value):
        raise _fail(path, f"{where} must be a list of strings")
    return tuple(str(v).strip() for v in value if str(v).strip())


def _unknown(keys: set, allowed: set, path: Path, where: str) -> None:
    extra = sorted(str(k) for k in keys - allowed)
    if extra:
        raise _fail(path, f"{where} has unknown key(s) {', '.join(extra)}; allowed: {', '.join(sorted(allowed))}")


def _rejoin_flow_commas(item: dict, allowed: set) -> dict:
    """Undo YAML's split of an unquoted comma inside a flow mapping value.

    In `{description: Feeling faint, lightheaded or unsteady}` YAML reads "lightheaded or
    unsteady" as a key with no value. Such a key, unknown and valueless, right after a text
    value, is glued back onto that value: the file then reads the way its author wrote it.
    """
    fixed: dict = {}
    last_text_key = None
    for key, value in item.items():
        if key not in allowed and value is None and last_text_key is not None:
            fixed[last_text_key] = f"{fixed[last_text_key]}, {key}"
            continue
        fixed[key] = value
        last_text_key = key if isinstance(value, str) else None
    return fixed


def _broader_cycle(broader: dict[str, tuple[str, ...]]) -> list[str]:
    """A circle of broader links (a -> b -> a), or [] when there is none."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    trail: list[str] = []

    def visit(key: str) -> list[str]:
        state[key] = 1
        trail.append(key)
        for parent in broader.get(key, ()):
            if state.get(parent) == 1:
                return trail[trail.index(parent):] + [parent]
            if parent not in state and (found := visit(parent)):
                return found
        trail.pop()
        state[key] = 2
        return []

    for key in broader:
        if key not in state and (found := visit(key)):
            return found
    return []


def parse_ontology(path: Path) -> Ontology:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise OntologyError(f"{path}: ontology file not found") from None
    try:
        data = yaml.load(raw.decode("utf-8"), Loader=SAFE_LOADER)
    except UnicodeDecodeError:
        raise _fail(path, "not UTF-8 text; save it as UTF-8") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise _fail(path, f"not valid YAML ({where}{problem}); fix the file") from None
    if not isinstance(data, dict):
        raise _fail(path, "must be a YAML mapping with name and classes")
    _unknown(set(data), TOP_KEYS, path, "the ontology")
    name = identifier(data.get("name"), path, "name")
    classes_raw = data.get("classes")
    if not isinstance(classes_raw, list) or not classes_raw:
        raise _fail(path, "classes must be a non-empty list of concept classes")

    classes: list[ClassSpec] = []
    concepts: list[ConceptSpec] = []
    seen_classes: dict[str, int] = {}
    seen_concepts: dict[str, str] = {}
    pending: list[tuple[dict, str, str]] = []  # (concept mapping, class key or "", where)
    for i, item in enumerate(classes_raw, start=1):
        where = f"classes[{i}]"
        if not isinstance(item, dict):
            raise _fail(path, f"{where} must be a mapping with id, name and concepts")
        item = _rejoin_flow_commas(item, CLASS_KEYS)
        _unknown(set(item), CLASS_KEYS, path, where)
        key = identifier(item.get("id"), path, f"{where}.id")
        if key in seen_classes:
            raise _fail(path, f"duplicate class id {key!r} ({where} and classes[{seen_classes[key]}]); make ids unique")
        seen_classes[key] = i
        classes.append(ClassSpec(key, text_value(item.get("name"), path, f"{where}.name") or key,
                                 text_value(item.get("description"), path, f"{where}.description")))
        members = item.get("concepts") or []
        if not isinstance(members, list):
            raise _fail(path, f"{where}.concepts must be a list")
        pending.extend((concept, key, f"class {key!r} concept {n}") for n, concept in enumerate(members, start=1))
    top = data.get("concepts") or []
    if not isinstance(top, list):
        raise _fail(path, "concepts must be a list")
    pending.extend((concept, "", f"concepts[{n}]") for n, concept in enumerate(top, start=1))

    for concept, class_key, where in pending:
        if not isinstance(concept, dict):
            raise _fail(path, f"{where} must be a mapping with id and name")
        concept = _rejoin_flow_commas(concept, CONCEPT_KEYS)
        _unknown(set(concept), CONCEPT_KEYS, path, where)
        key = identifier(concept.get("id"), path, f"{where} id")
        declared = text_value(concept.get("class"), path, f"concept {key!r} class")
        if class_key and declared and declared != class_key:
            raise _fail(path, f"concept {key!r} is listed under class {class_key!r} but says class: {declared}")
        class_key = class_key or declared
        if not class_key:
            raise _fail(path, f"concept {key!r} has no class; list it under a class or give it class: <class id>")
        if class_key not in seen_classes:
            raise _fail(path, f"concept {key!r} names class {class_key!r}, which is not defined; add the class")
        if key in seen_concepts:
            raise _fail(path, f"duplicate concept id {key!r} ({where} and {seen_concepts[key]}); make ids unique")
        seen_concepts[key] = where
        concepts.append(ConceptSpec(
            key=key,
            name=text_value(concept.get("name"), path, f"concept {key!r} name", required=True),
            class_key=class_key,
            synonyms=_string_list(concept.get("synonyms"), path, f"concept {key!r} synonyms"),
            description=text_value(concept.get("description"), path, f"concept {key!r} description"),
            broader=_string_list(concept.get("broader"), path, f"concept {key!r} broader"),
            related=_string_list(concept.get("related"), path, f"concept {key!r} related"),
            source=text_value(concept.get("source"), path, f"concept {key!r} source"),
        ))
    for concept in concepts:
        for parent in concept.broader:
            if parent not in seen_concepts:
                raise _fail(path, f"concept {concept.key!r} has broader {parent!r}, which is not a concept here")
            if parent == concept.key:
                raise _fail(path, f"concept {concept.key!r} lists itself as broader")
    cycle = _broader_cycle({c.key: c.broader for c in concepts})
    if cycle:
        raise _fail(path, f"broader links go round in a circle ({' -> '.join(cycle)}); remove one of them")
    if not concepts:
        raise _fail(path, "defines no concepts; add some under a class")
    return Ontology(name, text_value(data.get("version"), path, "version") or "1",
                    text_value(data.get("description"), path, "description"), str(path.resolve()),
                    hashlib.sha256(raw).hexdigest(), tuple(classes), tuple(concepts))
