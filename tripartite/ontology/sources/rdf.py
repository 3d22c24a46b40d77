"""OWL and SKOS in any RDF syntax rdflib reads (RDF/XML, Turtle, N-Triples, JSON-LD).

Terms are OWL classes, SKOS concepts and concept schemes. Parents: rdfs:subClassOf to a named
class (not to restrictions), skos:broader, the inverse of skos:narrower, and a top concept's
scheme (skos:topConceptOf, skos:hasTopConcept), so a scheme can be the root. Names: rdfs:label or
skos:prefLabel in the chosen language, else untagged, else any. Exact synonyms:
oboInOwl:hasExactSynonym and skos:altLabel; related ones: oboInOwl's related, broad and narrow
synonyms and skos:hiddenLabel. Obsolete: owl:deprecated true (and OBO's "obsolete " labels)."""
from __future__ import annotations

import json
import re
from pathlib import Path

from rdflib import DC, DCTERMS, OWL, RDF, RDFS, SKOS, BNode, Graph, Literal, Namespace, URIRef

from tripartite.ontology.reader import OntologyError
from tripartite.ontology.sources import Term, Terms, clean, utf8_text

OBO_IN_OWL = Namespace("http://www.geneontology.org/formats/oboInOwl#")
OBO = Namespace("http://purl.obolibrary.org/obo/")
DEFINITION = (OBO.IAO_0000115, SKOS.definition, RDFS.comment)
EXACT = (OBO_IN_OWL.hasExactSynonym, SKOS.altLabel)
RELATED = (OBO_IN_OWL.hasRelatedSynonym, OBO_IN_OWL.hasBroadSynonym, OBO_IN_OWL.hasNarrowSynonym, SKOS.hiddenLabel)
SYNTAX = {".ttl": "turtle", ".n3": "n3", ".nt": "nt", ".jsonld": "json-ld"}
LONG_LINE = re.compile(r"[^\r\n]{65536,}")  # N-Triples ends lines as rdflib's reader does
LONG_LINES_WORK = 2**40  # the sum of the squares of the long lines' lengths: a 1 MB line, about 3 s


def _parse(path: Path, data: bytes) -> Graph:
    """The file as a graph, parsed from the bytes read and checked here: rdflib is never given
    a path or URL of its own to open."""
    syntax = SYNTAX.get(path.suffix.lower(), "xml")
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


def _texts(graph: Graph, node, predicates) -> list[Literal]:
    return [o for p in predicates for o in graph.objects(node, p) if isinstance(o, Literal)]


def _pick(literals: list[Literal], language: str) -> str:
    """The label in `language`, else an untagged one, else the first; '' if none."""
    for wanted in (language, None):
        for literal in literals:
            if literal.language == wanted or (wanted and (literal.language or "").startswith(wanted + "-")):
                return clean(literal)
    return clean(literals[0]) if literals else ""


def _in_language(literals: list[Literal], language: str) -> list[str]:
    return list(dict.fromkeys(clean(lit) for lit in literals
                              if lit.language in (None, language) or (lit.language or "").startswith(language + "-")))


def read_rdf(path: Path, data: bytes, language: str = "en") -> Terms:
    graph = _parse(path, data)
    schemes = set(graph.subjects(RDF.type, SKOS.ConceptScheme))
    nodes = (set(graph.subjects(RDF.type, OWL.Class)) | set(graph.subjects(RDF.type, RDFS.Class))
             | set(graph.subjects(RDF.type, SKOS.Concept)) | set(graph.subjects(RDFS.subClassOf, None)) | schemes)
    terms = Terms()
    for node in nodes:
        if isinstance(node, BNode) or node in (OWL.Thing, OWL.Nothing):
            continue
        name = _pick(_texts(graph, node, (RDFS.label, SKOS.prefLabel, DCTERMS.title, DC.title)), language)
        parents = [str(p) for p in graph.objects(node, RDFS.subClassOf) if isinstance(p, URIRef) and p != OWL.Thing]
        parents += [str(p) for p in graph.objects(node, SKOS.broader) if isinstance(p, URIRef)]
        parents += [str(s) for s in graph.subjects(SKOS.narrower, node) if isinstance(s, URIRef)]
        # A thesaurus's top concepts hang off its scheme, which can then be the root.
        parents += [str(s) for s in graph.objects(node, SKOS.topConceptOf) if isinstance(s, URIRef)]
        parents += [str(s) for s in graph.subjects(SKOS.hasTopConcept, node) if isinstance(s, URIRef)]
        deprecated = any(o.toPython() is True for o in _texts(graph, node, (OWL.deprecated,)))
        terms[str(node)] = Term(
            id=str(node), name=name, parents=list(dict.fromkeys(parents)),
            exact=_in_language(_texts(graph, node, EXACT), language),
            related=_in_language(_texts(graph, node, RELATED), language),
            definition=_pick(_texts(graph, node, DEFINITION), language),
            obsolete=deprecated or name.lower().startswith("obsolete "))
    if not terms:
        raise OntologyError(f"{path}: no owl:Class or skos:Concept in it; is it an ontology or a thesaurus?")
    return terms
