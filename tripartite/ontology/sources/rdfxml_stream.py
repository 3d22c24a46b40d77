"""RDF/XML read as it streams past, keeping only the statements terms are built from (rdf_terms.
READ): a fraction of the time and memory of rdflib, which builds a graph of every statement
(an OWL release is mostly annotations terms never use: subsets, dates, ids, axioms' sources).

It reads RDF/XML as OWLAPI and ROBOT write it, and what the RDF/XML grammar makes of it as
rdflib does: node elements (typed, or rdf:Description) with rdf:about, rdf:nodeID or none;
property elements with rdf:resource, rdf:nodeID, a literal (rdf:datatype, xml:lang) or a
nested node; rdf:parseType Resource, Collection (owl:intersectionOf's lists) and Literal (read
as its text, as rdfxml.py has rdflib read it); xml:base and xml:lang anywhere. Anything else
(rdf:ID, property attributes, rdf:li, a document not under rdf:RDF, text where none belongs...)
raises Unrecognised, and rdflib reads the file instead. It is given the bytes rdfxml.checked_utf8
checked, and sets expat up as rdflib's reader does."""
from __future__ import annotations

import itertools
import re
from urllib.parse import urldefrag, urljoin
from xml.parsers import expat

from tripartite.ontology.sources.rdf_terms import FIRST, REST, TYPE, Blank, Facts, Text

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
XML = "http://www.w3.org/XML/1998/namespace"
NIL = RDF + "nil"
PROPERTY_NAMES = {RDF + "type", FIRST, REST, RDF + "value"}  # the RDF vocabulary a property element may be
NCNAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
LANGUAGE = re.compile(r"[a-zA-Z]+(-[a-zA-Z0-9]+)*")  # what rdflib accepts as a tag


class Unrecognised(Exception):
    """RDF/XML this reader leaves to rdflib."""


def stream_facts(data: bytes, base: str) -> Facts:
    """The statements of the document terms are built from; `base`: the document's own IRI."""
    reader = _Reader(urldefrag(base)[0])
    parser = expat.ParserCreate(None, " ")
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_UNLESS_STANDALONE)
    parser.ExternalEntityRefHandler = lambda *_: 1  # not read, as in rdflib's reader (and refused before)
    parser.buffer_text = True
    parser.buffer_size = 1 << 16
    parser.StartElementHandler = reader.start
    parser.EndElementHandler = reader.end
    parser.CharacterDataHandler = reader.text
    parser.Parse(data, True)
    return reader.facts


class _Frame:
    """An open element: its base IRI and language, and what it is in the grammar."""
    __slots__ = ("base", "language", "subject", "predicate", "value", "parts", "datatype", "kind")

    def __init__(self, kind: str, base: str, language: str | None, subject=None, predicate: str = "") -> None:
        self.kind = kind            # root, node, property, fixed (rdf:resource/nodeID), literal, collection
        self.base, self.language = base, language
        self.subject, self.predicate = subject, predicate
        self.value = None           # a property's object: a node, or a collection's members
        self.parts: list[str] = []  # a property's text
        self.datatype: str | None = None

    def has_text(self) -> bool:
        """Text in a property element, after which no node may come."""
        return any(part.strip() for part in self.parts)


class _Reader:
    def __init__(self, base: str) -> None:
        self.facts = Facts()
        self.stack: list[_Frame] = []
        self.document_base = base
        self.blanks = itertools.count()
        self.inside_literal = 0  # elements open inside an rdf:parseType="Literal" property

    # ---- expat's events ----
    def start(self, name: str, attributes: dict[str, str]) -> None:
        if self.inside_literal or (self.stack and self.stack[-1].kind == "literal"):
            self.inside_literal += 1  # markup inside a literal: only its text is kept
            return
        parent = self.stack[-1] if self.stack else None
        base, language = self._scope(parent, attributes)
        iri = _iri(name)
        if parent is None:
            if iri != RDF + "RDF" or _others(attributes, ()):
                raise Unrecognised("the document element is not rdf:RDF")
            self.stack.append(_Frame("root", base, language))
        elif parent.kind in ("root", "collection") or (parent.kind == "property" and not parent.has_text()):
            self._node(iri, attributes, parent, base, language)
        elif parent.kind == "node":
            self._property(iri, attributes, parent, base, language)
        else:
            raise Unrecognised(f"an element inside {parent.kind} content")

    def end(self, name: str) -> None:
        if self.inside_literal:
            self.inside_literal -= 1
            return
        frame = self.stack.pop()
        if frame.kind in ("property", "literal"):
            value = frame.value if frame.value is not None else \
                Text("".join(frame.parts), None if frame.datatype else frame.language, frame.datatype)
            self.facts.add(frame.subject, frame.predicate, value)
        elif frame.kind == "fixed":
            self.facts.add(frame.subject, frame.predicate, frame.value)
        elif frame.kind == "collection":
            self.facts.add(frame.subject, frame.predicate, self._list(frame.value or []))

    def text(self, data: str) -> None:
        frame = self.stack[-1] if self.stack else None
        if frame is not None and frame.kind in ("property", "literal") and frame.value is None:
            frame.parts.append(data)
        elif data.strip():
            raise Unrecognised("text where RDF/XML has none")

    # ---- the grammar ----
    def _scope(self, parent: _Frame | None, attributes: dict[str, str]) -> tuple[str, str | None]:
        """The element's base IRI and language, as rdflib works them out."""
        base = parent.base if parent else self.document_base
        given = attributes.get(XML + " base")
        if given is not None:
            base = urljoin(base, urldefrag(given)[0])
        language = attributes.get(XML + " lang", parent.language if parent else None)
        if language is not None and not LANGUAGE.fullmatch(language):
            raise Unrecognised(f"the language tag {language!r}")
        return base, language

    def _node(self, iri: str, attributes: dict[str, str], parent: _Frame, base: str, language: str | None) -> None:
        if iri.startswith(RDF) and iri != RDF + "Description":
            raise Unrecognised(f"the node element {iri}")
        if _others(attributes, ("about", "nodeID")):
            raise Unrecognised("property attributes on a node element")
        about, node_id = attributes.get(RDF + " about"), attributes.get(RDF + " nodeID")
        if about is not None and node_id is not None:
            raise Unrecognised("rdf:about with rdf:nodeID")
        subject = _absolute(base, about) if about is not None else \
            self._named_blank(node_id) if node_id is not None else self._blank()
        if iri != RDF + "Description":
            self.facts.add(subject, TYPE, iri)
        if parent.kind == "collection":
            parent.value = parent.value if parent.value is not None else []
            parent.value.append(subject)
        elif parent.kind == "property":
            if parent.value is not None:
                raise Unrecognised("two nodes inside one property element")
            parent.value = subject
        self.stack.append(_Frame("node", base, language, subject))

    def _property(self, iri: str, attributes: dict[str, str], node: _Frame, base: str, language: str | None) -> None:
        if iri.startswith(RDF) and iri not in PROPERTY_NAMES:
            raise Unrecognised(f"the property element {iri}")
        if _others(attributes, ("resource", "nodeID", "datatype", "parseType")):
            raise Unrecognised("rdf:ID or property attributes on a property element")
        resource, node_id = attributes.get(RDF + " resource"), attributes.get(RDF + " nodeID")
        datatype, parse_type = attributes.get(RDF + " datatype"), attributes.get(RDF + " parseType")
        if sum(value is not None for value in (resource, node_id, parse_type)) > 1 or \
                (datatype is not None and (resource, node_id, parse_type) != (None, None, None)):
            raise Unrecognised("a property element with more than one kind of object")
        frame = _Frame("property", base, language, node.subject, iri)
        if resource is not None or node_id is not None:
            frame.kind = "fixed"
            frame.value = _absolute(base, resource) if resource is not None else self._named_blank(node_id)
        elif parse_type == "Resource":
            blank = self._blank()
            self.facts.add(node.subject, iri, blank)
            frame = _Frame("node", base, language, blank)
        elif parse_type == "Collection":
            frame.kind = "collection"
        elif parse_type is not None:
            frame.kind = "literal"  # any other parseType is a literal (rdf-syntax-grammar 7.2.17): its text
        elif datatype is not None:
            frame.datatype = _absolute(base, datatype)
        self.stack.append(frame)

    def _list(self, members: list) -> str | Blank:
        """An rdf:first/rdf:rest list of the members, as rdflib builds a Collection's."""
        head: str | Blank = NIL
        for member in reversed(members):
            cell = self._blank()
            self.facts.add(cell, FIRST, member)
            self.facts.add(cell, REST, head)
            head = cell
        return head

    def _blank(self) -> Blank:
        return Blank(f"b{next(self.blanks)}")

    def _named_blank(self, node_id: str) -> Blank:
        if not NCNAME.fullmatch(node_id):
            raise Unrecognised(f"the rdf:nodeID {node_id!r}")
        return Blank(f"n{node_id}")


def _iri(name: str) -> str:
    """expat's 'namespace local' as one IRI."""
    namespace, separator, local = name.partition(" ")
    if not separator:
        raise Unrecognised(f"the element {name} outside any namespace")
    return namespace + local


def _others(attributes: dict[str, str], allowed: tuple[str, ...]) -> bool:
    """Whether an attribute other than xml:* and the rdf: ones allowed is there."""
    rdf_allowed = {f"{RDF} {name}" for name in allowed}
    return any(not key.startswith(XML + " ") and key not in rdf_allowed for key in attributes)


def _absolute(base: str, reference: str) -> str:
    """An IRI as rdflib's RDF/XML reader makes it absolute."""
    result = urljoin(base, reference, allow_fragments=True)
    return result + "#" if reference.endswith("#") and not result.endswith("#") else result
