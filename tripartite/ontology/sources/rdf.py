"""OWL and SKOS in any RDF syntax rdflib reads (RDF/XML, Turtle, N-Triples, JSON-LD).

Terms are OWL classes, SKOS concepts and concept schemes. Parents: rdfs:subClassOf to a named
class (not to restrictions), skos:broader, the inverse of skos:narrower, and a top concept's
scheme (skos:topConceptOf, skos:hasTopConcept), so a scheme can be the root. Names: rdfs:label or
skos:prefLabel in the chosen language, else untagged, else any. Exact synonyms:
oboInOwl:hasExactSynonym and skos:altLabel; related ones: oboInOwl's related, broad and narrow
synonyms and skos:hiddenLabel. Obsolete: owl:deprecated true (and OBO's "obsolete " labels)."""
from __future__ import annotations

from pathlib import Path

from rdflib import DC, DCTERMS, OWL, RDF, RDFS, SKOS, BNode, Graph, Literal, Namespace, URIRef

from tripartite.ontology.reader import OntologyError
from tripartite.ontology.sources import Term, clean

OBO_IN_OWL = Namespace("http://www.geneontology.org/formats/oboInOwl#")
OBO = Namespace("http://purl.obolibrary.org/obo/")
DEFINITION = (OBO.IAO_0000115, SKOS.definition, RDFS.comment)
EXACT = (OBO_IN_OWL.hasExactSynonym, SKOS.altLabel)
RELATED = (OBO_IN_OWL.hasRelatedSynonym, OBO_IN_OWL.hasBroadSynonym, OBO_IN_OWL.hasNarrowSynonym, SKOS.hiddenLabel)
SYNTAX = {".ttl": "turtle", ".n3": "n3", ".nt": "nt", ".jsonld": "json-ld"}


def _parse(path: Path) -> Graph:
    graph = Graph()
    try:
        graph.parse(str(path), format=SYNTAX.get(path.suffix.lower(), "xml"))
    except UnicodeDecodeError:
        raise OntologyError(f"{path}: not UTF-8 text; save it as UTF-8") from None
    except Exception as exc:  # rdflib raises its parsers' own errors (SAX, Turtle, JSON)
        raise OntologyError(f"{path}: not valid RDF ({type(exc).__name__}: {clean(exc)[:160]}); "
                            f"fix the file or give it the suffix of its syntax (.owl, .ttl, .jsonld)") from None
    return graph


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


def read_rdf(path: Path, language: str = "en") -> dict[str, Term]:
    graph = _parse(path)
    schemes = set(graph.subjects(RDF.type, SKOS.ConceptScheme))
    nodes = (set(graph.subjects(RDF.type, OWL.Class)) | set(graph.subjects(RDF.type, RDFS.Class))
             | set(graph.subjects(RDF.type, SKOS.Concept)) | set(graph.subjects(RDFS.subClassOf, None)) | schemes)
    terms: dict[str, Term] = {}
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
