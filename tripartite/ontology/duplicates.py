"""Labels two concepts share: what `ontology load` notes. A concept's labels are its name and
its (exact) synonyms, case folded and with spaces normalised; two concepts with one label
make a mention of it mean either, so each shared label is said once per pair, whether both
concepts are in the file being loaded or one is in another ontology already loaded.
duplicate_labels is the check, on plain mappings; shared_labels reads what it needs."""
from __future__ import annotations

from typing import Iterable, Mapping


def label(text: str) -> str:
    """A name or synonym as it is compared: 'Heart  Attack' and 'heart attack' are one label."""
    return " ".join(text.casefold().split())


def labels_of(concept: Mapping) -> list[str]:
    """The concept's distinct labels, its name's first."""
    found = [label(t) for t in (concept["name"], *(concept.get("synonyms") or ())) if t and t.strip()]
    return list(dict.fromkeys(found))


def _named(concept: Mapping, where: str = "") -> str:
    return f"{concept['id']} ({concept['name']}{where})"


def duplicate_labels(concepts: Iterable[Mapping], loaded: Iterable[Mapping] = ()) -> list[str]:
    """One line per label shared by two concepts of `concepts` (the file's: mappings with id,
    name and synonyms), or by one of them and one of `loaded` (other ontologies' concepts in
    the graph, which may say their `ontology`), naming both concepts and the label."""
    lines: list[str] = []
    holders: dict[str, Mapping] = {}
    for concept in concepts:
        for text in labels_of(concept):
            first = holders.setdefault(text, concept)
            if first is not concept:
                lines.append(f"{_named(first)} and {_named(concept)} share the label {text!r}")
    others: dict[str, list[Mapping]] = {}
    for concept in loaded:
        for text in labels_of(concept):
            others.setdefault(text, []).append(concept)
    for text, concept in holders.items():
        for other in others.get(text, []):
            where = f", loaded in {other['ontology']}" if other.get("ontology") else ", loaded"
            lines.append(f"{_named(concept)} and {_named(other, where)} share the label {text!r}")
    return lines


def shared_labels(graph, ontology) -> list[str]:
    """duplicate_labels of a parsed ontology (reader.Ontology) against the concepts of the
    other ontologies loaded in the graph (its own, loaded before or just now, are not others)."""
    mine = [{"id": ontology.concept_id(c.key), "name": c.name, "synonyms": c.synonyms} for c in ontology.concepts]
    others = [row for row in graph.run("analysis/concepts", ontology=None) if row["ontology"] != ontology.name]
    return duplicate_labels(mine, others)
