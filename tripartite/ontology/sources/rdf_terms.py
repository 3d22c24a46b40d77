"""OWL and SKOS terms from the statements of an RDF file that concern them (facts), whoever read
the file: rdflib (rdf.py) or the RDF/XML stream (rdfxml_stream.py). Both hand over the same
facts for the same file, so the terms are the same.

Terms are OWL classes, SKOS concepts and concept schemes. Parents: rdfs:subClassOf to a named
class (not to restrictions), skos:broader, the inverse of skos:narrower, and a top concept's
scheme (skos:topConceptOf, skos:hasTopConcept), so a scheme can be the root; a class with none
of these but an owl:equivalentClass intersection (a logical definition, as OWLAPI and ROBOT
write one) takes the named classes of the intersection. Names: rdfs:label or skos:prefLabel in
the first of the languages asked for that has one, else untagged; the labels of the other
languages asked for are exact synonyms, other languages are left out. Exact synonyms:
oboInOwl:hasExactSynonym and skos:altLabel, less those an owl:Axiom types as abbreviations;
related ones: oboInOwl's related, broad and narrow synonyms and skos:hiddenLabel. Definitions:
IAO_0000115 and skos:definition only (rdfs:comment holds curators' notes: counted). Cross-
references: oboInOwl:hasDbXref, skos:exactMatch and skos:closeMatch (skos:related,
broadMatch, narrowMatch name other concepts, not this one: not read). Notation: skos:notation.
Obsolete: owl:deprecated true (and OBO's "obsolete " labels)."""
from __future__ import annotations

import re
from typing import NamedTuple

from tripartite.ontology.sources import Term, Terms, clean, code, curie, is_abbreviation
from tripartite.ontology.sources.tally import COMMENTS, DEFINED, PARENTLESS, Tally, named, quoted

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
OWL = "http://www.w3.org/2002/07/owl#"
SKOS = "http://www.w3.org/2004/02/skos/core#"
OIO = "http://www.geneontology.org/formats/oboInOwl#"
XSD_BOOLEAN = "http://www.w3.org/2001/XMLSchema#boolean"

TYPE, FIRST, REST = RDF + "type", RDF + "first", RDF + "rest"
CLASS_TYPES = {OWL + "Class", RDFS + "Class", SKOS + "Concept", SKOS + "ConceptScheme"}
NAMES = (RDFS + "label", SKOS + "prefLabel", "http://purl.org/dc/terms/title",
         "http://purl.org/dc/elements/1.1/title")
EXACT_SYNONYM = OIO + "hasExactSynonym"
EXACT = (EXACT_SYNONYM, SKOS + "altLabel")
RELATED = (OIO + "hasRelatedSynonym", OIO + "hasBroadSynonym", OIO + "hasNarrowSynonym", SKOS + "hiddenLabel")
DEFINITIONS = ("http://purl.obolibrary.org/obo/IAO_0000115", SKOS + "definition")
COMMENT = RDFS + "comment"
XREFS = (OIO + "hasDbXref", SKOS + "exactMatch", SKOS + "closeMatch")
NOTATION = SKOS + "notation"
SUBCLASS, BROADER, TOP_OF = RDFS + "subClassOf", SKOS + "broader", SKOS + "topConceptOf"
NARROWER, HAS_TOP = SKOS + "narrower", SKOS + "hasTopConcept"  # parents stated from the parent's side
DEPRECATED = OWL + "deprecated"
EQUIVALENT, INTERSECTION = OWL + "equivalentClass", OWL + "intersectionOf"
AXIOM = (OWL + "annotatedSource", OWL + "annotatedProperty", OWL + "annotatedTarget", OIO + "hasSynonymType")
NOT_TERMS = {OWL + "Thing", OWL + "Nothing"}
# Every predicate a term is built from: readers keep only statements with these.
READ = {TYPE, FIRST, REST, *NAMES, *EXACT, *RELATED, *DEFINITIONS, COMMENT, *XREFS, NOTATION, SUBCLASS, BROADER, TOP_OF, NARROWER, HAS_TOP,
        DEPRECATED, EQUIVALENT, INTERSECTION, *AXIOM}


class Blank(NamedTuple):
    """A blank node, by a label its reader gave it (never equal to an IRI, which is a str)."""
    label: str


class Text(NamedTuple):
    """A literal: its text as written, its language tag (as written) and datatype IRI."""
    value: str
    language: str | None = None
    datatype: str | None = None


class Facts:
    """The statements about each subject that terms are built from, in the order first read,
    each once (as in an RDF graph): subject -> predicate -> values."""

    def __init__(self) -> None:
        self.about: dict[str | Blank, dict[str, dict[str | Blank | Text, None]]] = {}

    def add(self, subject: str | Blank, predicate: str, value: str | Blank | Text) -> None:
        if predicate in READ and (predicate != TYPE or value in CLASS_TYPES):
            self.about.setdefault(subject, {}).setdefault(predicate, {})[value] = None

    def values(self, subject: str | Blank, predicates: tuple[str, ...] | str) -> list:
        said = self.about.get(subject, {})
        if isinstance(predicates, str):
            return list(said.get(predicates, ()))
        return [value for predicate in predicates for value in said.get(predicate, ())]


class _Notes:
    """What the terms were read past, for the report."""

    def __init__(self) -> None:
        self.comments, self.defined, self.parentless, self.unlabelled = Tally(), Tally(), Tally(), Tally()

    def report(self, problems: list[str], languages: list[str]) -> None:
        self.comments.report(problems, *COMMENTS)
        self.defined.report(problems, *DEFINED)
        self.parentless.report(problems, *PARENTLESS)
        listed = ", ".join(languages)
        self.unlabelled.report(problems, f"term(s) with labels, but none in {listed} nor untagged",
                               "each is named after its id; pass --language with theirs to read them")


def terms_from_facts(facts: Facts, languages: list[str]) -> Terms:
    """The terms the facts describe, keyed by id (sorted, so every reader gives one order)."""
    nodes = sorted({subject for subject, said in facts.about.items()
                    if isinstance(subject, str) and subject not in NOT_TERMS
                    and (said.get(TYPE) or said.get(SUBCLASS))})
    below = _stated_from_above(facts)
    abbreviations = _abbreviations(facts)
    terms, notes = Terms(), _Notes()
    for node in nodes:
        term = _term(facts, node, languages, notes)
        term.parents = _parents(facts, node, below, term, notes)
        typed = abbreviations.get(node, set())
        term.abbreviations = [s for s in term.exact if s in typed]
        term.exact = [s for s in term.exact if s not in typed]
        terms[term.id] = term
    notes.report(terms.problems, languages)
    return terms


def _term(facts: Facts, node: str, languages: list[str], notes: _Notes) -> Term:
    term_id = curie(node)
    labels = _texts(facts.values(node, NAMES), languages)
    name = labels[0] if labels else ""
    elsewhere = sorted({t.language for t in facts.values(node, NAMES) if isinstance(t, Text) and t.language
                        and clean(t.value)})
    if not labels and elsewhere:  # labelled, but only in languages not asked for: not silently one of them
        name = _local_name(term_id)
        notes.unlabelled.add(f"{term_id} ({', '.join(elsewhere)})")
    for comment in facts.values(node, COMMENT):
        if isinstance(comment, Text):
            notes.comments.add(f"{term_id}: {quoted(clean(comment.value))}")
    exact = [s for s in dict.fromkeys(labels[1:] + _texts(facts.values(node, EXACT), languages)) if s != name]
    definitions = _texts(facts.values(node, DEFINITIONS), languages)
    notations = [clean(v.value) for v in facts.values(node, NOTATION) if isinstance(v, Text) and clean(v.value)]
    deprecated = any(_true(v) for v in facts.values(node, DEPRECATED) if isinstance(v, Text))
    return Term(id=term_id, name=name, exact=exact, related=_texts(facts.values(node, RELATED), languages),
                definition=definitions[0] if definitions else "",
                obsolete=deprecated or name.lower().startswith("obsolete "),
                xrefs=_xrefs(facts.values(node, XREFS)), notation=notations[0] if notations else "")


def _texts(values: list, languages: list[str]) -> list[str]:
    """The literals in the languages asked for, in their order, then the untagged ones; each
    text once, cleaned."""
    texts = [v for v in values if isinstance(v, Text)]
    ranked = [clean(t.value) for wanted in languages for t in texts if t.language and _speaks(t.language, wanted)]
    ranked += [clean(t.value) for t in texts if not t.language]
    return [text for text in dict.fromkeys(ranked) if text]


def _speaks(tag: str, wanted: str) -> bool:
    tag = tag.lower()
    return tag == wanted or tag.startswith(wanted + "-")


def _true(text: Text) -> bool:
    """owl:deprecated's value: rdflib's reading of an xsd:boolean, else the text 'true'."""
    if text.datatype == XSD_BOOLEAN:
        return text.value.lower() in ("true", "1")
    return text.value.strip().lower() == "true"


def _xrefs(values: list) -> list[str]:
    found = [clean(v.value) if isinstance(v, Text) else v for v in values if not isinstance(v, Blank)]
    return list(dict.fromkeys(code(v) for v in found if v))


def _local_name(term_id: str) -> str:
    tail = re.split(r"[/#]", term_id.rstrip("/#"))[-1] if "://" in term_id else term_id
    return tail or term_id


def _stated_from_above(facts: Facts) -> dict[str, dict[str, list[str]]]:
    """Per predicate (skos:narrower, skos:hasTopConcept), child -> the parents stating it,
    sorted: the order does not depend on which reader read the file."""
    below: dict[str, dict[str, list[str]]] = {NARROWER: {}, HAS_TOP: {}}
    for subject, said in facts.about.items():
        for predicate in below:
            for child in said.get(predicate, ()):
                if isinstance(subject, str) and isinstance(child, str):
                    below[predicate].setdefault(child, []).append(subject)
    for children in below.values():
        for parents in children.values():
            parents.sort()
    return below


def _parents(facts: Facts, node: str, below: dict[str, dict[str, list[str]]], term: Term, notes: _Notes) -> list[str]:
    said = facts.about.get(node, {})
    stated = [*said.get(SUBCLASS, ()), *said.get(BROADER, ()), *below[NARROWER].get(node, ()),
              *said.get(TOP_OF, ()), *below[HAS_TOP].get(node, ())]
    stated = [p for p in stated if isinstance(p, str) and p not in NOT_TERMS]  # restrictions are blank nodes
    if not stated and said.get(EQUIVALENT):
        stated = _intersected(facts, said[EQUIVALENT])
        (notes.defined if stated else notes.parentless).add(named(term.id, term.name))
    return list(dict.fromkeys(curie(p) for p in stated))


def _intersected(facts: Facts, equivalents) -> list[str]:
    """The named classes of the owl:intersectionOf lists among a class's equivalents."""
    named_classes: list[str] = []
    for equivalent in equivalents:
        if not isinstance(equivalent, Blank):
            continue  # equal to a named class: the same class, not one above it
        for members in facts.values(equivalent, INTERSECTION):
            named_classes += [m for m in _members(facts, members) if isinstance(m, str) and m not in NOT_TERMS]
    return named_classes


def _members(facts: Facts, node) -> list:
    """An RDF list's members (rdf:first along rdf:rest), stopping at a node seen twice."""
    members, seen = [], set()
    while isinstance(node, Blank) and node not in seen:
        seen.add(node)
        members += facts.values(node, FIRST)[:1]
        rest = facts.values(node, REST)
        node = rest[0] if rest else None
    return members


def _abbreviations(facts: Facts) -> dict[str, set[str]]:
    """Class -> its exact synonyms an owl:Axiom types as abbreviations (hasSynonymType
    OMO:0003000 or OMO:0003012), as OWLAPI writes OBO's typed synonyms."""
    typed: dict[str, set[str]] = {}
    for axiom, said in facts.about.items():
        kinds = said.get(OIO + "hasSynonymType", ())
        if not any(isinstance(kind, str) and is_abbreviation(kind) for kind in kinds):
            continue
        if EXACT_SYNONYM not in said.get(OWL + "annotatedProperty", ()):
            continue
        for source in said.get(OWL + "annotatedSource", ()):
            targets = [clean(t.value) for t in said.get(OWL + "annotatedTarget", ()) if isinstance(t, Text)]
            if isinstance(source, str):
                typed.setdefault(source, set()).update(targets)
    return typed
