"""OWL and SKOS in any RDF syntax: RDF/XML as OWLAPI and ROBOT write it is streamed
(rdfxml_stream.py: a fraction of rdflib's time and memory); other RDF/XML, Turtle, N-Triples,
N3 and JSON-LD are read by rdflib, behind checks for what makes it run away. Either way the
statements terms are built from go to rdf_terms.py, which says what is read from them."""
from __future__ import annotations

import json
import re
from pathlib import Path

from tripartite.ontology.reader import OntologyError
from tripartite.ontology.sources import Terms, clean, utf8_text
from tripartite.ontology.sources.rdf_terms import READ, Blank, Facts, Text, terms_from_facts

SYNTAX = {".ttl": "turtle", ".n3": "n3", ".nt": "nt", ".jsonld": "json-ld"}
LONG_LINE = re.compile(r"[^\r\n]{65536,}")  # N-Triples ends lines as rdflib's reader does
LONG_LINES_WORK = 2**40  # the sum of the squares of the long lines' lengths: a 1 MB line, about 3 s


def read_rdf(path: Path, data: bytes, languages: list[str]) -> Terms:
    terms = terms_from_facts(_facts(path, data), languages)
    if not terms:
        raise OntologyError(f"{path}: no owl:Class or skos:Concept in it; is it an ontology or a thesaurus?")
    return terms


def _facts(path: Path, data: bytes) -> Facts:
    """The statements terms are built from: streamed from RDF/XML the stream reader knows,
    else through rdflib's graph."""
    syntax = SYNTAX.get(path.suffix.lower(), "xml")
    if syntax == "xml":
        from xml.parsers import expat

        from tripartite.ontology.sources.rdfxml import checked_utf8
        from tripartite.ontology.sources.rdfxml_stream import Unrecognised, stream_facts
        data = checked_utf8(path, data)
        try:
            return stream_facts(data, path.resolve().as_uri())
        except (Unrecognised, expat.ExpatError, ValueError):
            pass  # rdflib reads it, or says in its words what is wrong with it
    return graph_facts(_parse(path, data, syntax))


def graph_facts(graph) -> Facts:
    """The statements of an rdflib graph that terms are built from, subject by subject in the
    order rdflib keeps them (as read), as the stream reader gives them."""
    from rdflib import BNode, Literal

    def value(node):
        if isinstance(node, Literal):
            return Text(str(node), node.language, str(node.datatype) if node.datatype else None)
        return Blank(str(node)) if isinstance(node, BNode) else str(node)

    facts = Facts()
    for subject in graph.subjects(unique=True):
        for predicate, node in graph.predicate_objects(subject):
            if str(predicate) in READ:
                facts.add(value(subject), str(predicate), value(node))
    return facts


def _parse(path: Path, data: bytes, syntax: str):
    """The file as an rdflib graph, parsed from the bytes read and checked here (RDF/XML's
    already by rdfxml.checked_utf8): rdflib is never given a path or URL of its own to open."""
    from rdflib import Graph
    graph = Graph()
    try:
        if syntax == "xml":
            from tripartite.ontology.sources.rdfxml import parse_rdf_xml
            parse_rdf_xml(path, data, graph)
        else:
            text = utf8_text(path, data)
            if syntax == "json-ld":
                _check_contexts(path, text)
            if syntax == "nt":
                _check_lines(path, text)
            if syntax in ("turtle", "n3"):
                _check_literals(path, text)
            graph.parse(data=text, format=syntax, publicID=path.resolve().as_uri())
    except OntologyError:
        raise
    except RecursionError:
        raise OntologyError(f"{path}: nested too deeply to read (rdflib reads nesting by recursion); "
                            f"flatten it") from None
    except Exception as exc:  # rdflib raises its parsers' own errors (SAX, Turtle, JSON)
        raise OntologyError(f"{path}: not valid RDF ({type(exc).__name__}: {clean(exc)[:160]}); "
                            f"fix the file or give it the suffix of its syntax (.owl, .ttl, .jsonld)") from None
    return graph


def _check_contexts(path: Path, text: str) -> None:
    """rdflib fetches a context given by IRI, over HTTP with no timeout or as a file:// from
    disk, and copies every term in scope for each context nested in the document (quadratic):
    only contexts written out in the document's top-level objects are read."""
    try:
        document = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise OntologyError(f"{path}: not valid JSON ({clean(exc)[:160]}); fix the file") from None
    tops = document if isinstance(document, list) else [document]
    pending = [(node, isinstance(node, dict)) for node in tops]  # (a JSON value, is it a top-level object)
    while pending:
        node, top = pending.pop()
        values = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in values:
            if key in ("@context", "@import"):
                iri = _reference(value)
                if iri is not None:
                    raise OntologyError(f"{path}: its {key} refers to {iri}, which is not fetched; inline that "
                                        f"context (its JSON object in place of the reference)")
                if key == "@context" and not top:
                    raise OntologyError(f"{path}: a @context inside a node or a term definition is not read; "
                                        f"move its terms into the document's top-level @context")
            pending.append((value, False))


def _check_lines(path: Path, text: str) -> None:
    """rdflib reads an N-Triples line 2 KB at a time and matches it from its start again after
    each read: quadratic in the line's length (a 4 MB line took 44 s). Its Turtle parser reads
    such a line at once."""
    lengths = [len(match.group()) for match in LONG_LINE.finditer(text)]
    if sum(length**2 for length in lengths) > LONG_LINES_WORK:
        raise OntologyError(f"{path}: {len(lengths)} line(s) of up to {max(lengths) / 2**20:.1f} MB, which rdflib "
                            f"reads in time growing with the square of their length; save it as Turtle (.ttl)")


LONG_QUOTE = re.compile(r'"""|\'\'\'')
LITERAL_CHARS = 256 * 1024   # a triple-quoted literal: rdflib reads one in time growing with the square of its lines
ESCAPES_PER_LINE = 100_000   # ... and of the escapes in it


def _check_literals(path: Path, text: str) -> None:
    """rdflib's Turtle reader is quadratic in a literal's lines and escapes (a 400 KB literal
    of 200,000 lines took 2.6 s, 2 MB of escapes 14 s): a long triple-quoted span or a line
    of very many escapes is refused before it starts. The spans are measured between quote
    marks, comments and IRIs not told apart: a file can only be refused too soon, never late."""
    marks = [match.start() for match in LONG_QUOTE.finditer(text)]
    longest = max((b - a for a, b in zip(marks[::2], marks[1::2])), default=0)  # opening and closing marks
    if longest > LITERAL_CHARS:
        raise OntologyError(f"{path}: a literal (between triple quotes) of {longest / 1024:,.0f} KB, more than the "
                            f"{LITERAL_CHARS // 1024} KB rdflib reads in reasonable time; shorten it, or save the "
                            "file as RDF/XML (.owl)")
    if text.count("\\") > ESCAPES_PER_LINE and \
            any(line.count("\\") > ESCAPES_PER_LINE for line in text.splitlines()):
        raise OntologyError(f"{path}: a line of more than {ESCAPES_PER_LINE:,} escapes (\\...), which rdflib reads in "
                            "time growing with their square; save the file as RDF/XML (.owl)")


def _reference(context) -> str | None:
    """The IRI a context is given by, if it is: a string, alone or in lists (rdflib reads
    lists of lists too)."""
    if isinstance(context, list):
        return next((iri for item in context if (iri := _reference(item)) is not None), None)
    return context if isinstance(context, str) else None
