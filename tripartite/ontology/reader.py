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
The file, each class and each concept are declared as pydantic models (OntologyFile, ClassEntry,
ConceptEntry: the keys each takes and their types); the reader checks what spans entries (ids
unique, classes defined, broader links). Every problem is an OntologyError naming the file and
the fix; nothing is written for an ontology that fails validation.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import BeforeValidator, Field

from tripartite.infra.entries import Entry, RequiredText, Text, Texts, checked, required_text
from tripartite.infra.errors import TripartiteError

SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: imports hold thousands
ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")


class OntologyError(TripartiteError):
    pass


def _id(value: Any) -> str:
    found = required_text(value)
    if not ID.match(found):
        raise ValueError(f"{found!r} is not a valid id; use letters, digits, '_', '-' or '.'")
    return found


def _members(value: Any) -> list:
    """A list of entries, checked one by one later (each error names its entry); null is none."""
    if value is not None and not isinstance(value, list):
        raise ValueError("must be a list")
    return value or []


def _classes(value: Any) -> list:
    if not isinstance(value, list) or not value:
        raise ValueError("must be a non-empty list of concept classes")
    return value


Id = Annotated[str, BeforeValidator(_id)]
Members = Annotated[list, BeforeValidator(_members)]


class ConceptEntry(Entry):
    id: Id
    class_: Text = Field("", alias="class")
    name: RequiredText
    synonyms: Texts = ()
    description: Text = ""
    broader: Texts = ()
    related: Texts = ()   # related (looser) synonyms, kept apart from the exact ones
    abbreviations: Texts = ()  # exact synonyms that are abbreviations (read as synonyms too)
    source: Text = ""     # the term's id in the ontology it was imported from
    xrefs: Texts = ()     # its codes in other vocabularies (MESH:D003920, ICD10CM:E11.9, an IRI)
    notation: Text = ""   # its own code in its scheme (I10)
    seen: Any = None      # where `ontology draft` found it: for the curator, not loaded


class ClassEntry(Entry):
    id: Id
    name: Text = ""
    description: Text = ""
    concepts: Members = []
    source: Text = ""


class OntologyFile(Entry):
    name: Id
    version: Text = ""
    description: Text = ""
    classes: Annotated[list, BeforeValidator(_classes)]
    concepts: Members = []


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
    xrefs: tuple[str, ...] = ()     # codes of the same thing in other vocabularies
    notation: str = ""              # its own code in its scheme
    abbreviations: tuple[str, ...] = ()  # exact synonyms that are abbreviations


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
    top = checked(OntologyFile, data, lambda key: f"{path}: {key or 'the ontology'}", OntologyError)

    classes: list[ClassSpec] = []
    concepts: list[ConceptSpec] = []
    seen_classes: dict[str, int] = {}
    seen_concepts: dict[str, str] = {}
    pending: list[tuple[Any, str, str]] = []  # (concept mapping, class key or "", where)
    for i, item in enumerate(top.classes, start=1):
        where = f"classes[{i}]"
        if not isinstance(item, dict):
            raise _fail(path, f"{where} must be a mapping with id, name and concepts")
        entry = _entry(ClassEntry, item, lambda key, where=where: f"{path}: {where}.{key}" if key else f"{path}: {where}")
        if entry.id in seen_classes:
            raise _fail(path, f"duplicate class id {entry.id!r} ({where} and classes[{seen_classes[entry.id]}]); make ids "
                              "unique")
        seen_classes[entry.id] = i
        classes.append(ClassSpec(entry.id, entry.name or entry.id, entry.description))
        pending.extend((concept, entry.id, f"class {entry.id!r} concept {n}")
                       for n, concept in enumerate(entry.concepts, start=1))
    pending.extend((concept, "", f"concepts[{n}]") for n, concept in enumerate(top.concepts, start=1))

    for concept, class_key, where in pending:
        if not isinstance(concept, dict):
            raise _fail(path, f"{where} must be a mapping with id and name")
        named = f"concept {str(concept.get('id', '')).strip()!r}"  # once its id is read, a concept is named by it
        entry = _entry(ConceptEntry, concept, lambda key, where=where, named=named: f"{path}: " + (
            where if not key else f"{where} id" if key == "id" else f"{named} {key}"))
        key, declared = entry.id, entry.class_
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
        concepts.append(ConceptSpec(key, entry.name, class_key, entry.synonyms, entry.description, entry.broader,
                                    entry.related, entry.source, entry.xrefs, entry.notation, entry.abbreviations))
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
    return Ontology(top.name, top.version or "1", top.description, str(path.resolve()), hashlib.sha256(raw).hexdigest(),
                    tuple(classes), tuple(concepts))


def _entry(model: type[Entry], item: dict, where) -> Any:
    """A class or concept mapping read as its model, after YAML's unquoted commas are mended."""
    return checked(model, _rejoin_flow_commas(item, set(model.keys())), where, OntologyError)
