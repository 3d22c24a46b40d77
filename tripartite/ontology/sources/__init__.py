"""Reading published ontologies into one shape: a term with its parents, exact and related
synonyms, definition and obsolete flag. One module per family of formats: obo.py (OBO 1.4
via fastobo), rdf.py (OWL and SKOS in any RDF syntax via rdflib), table.py (CSV)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tripartite.ontology.reader import OntologyError


@dataclass
class Term:
    id: str                          # as the file writes it: DOID:1234, an IRI, a CSV id
    name: str = ""
    parents: list[str] = field(default_factory=list)
    exact: list[str] = field(default_factory=list)     # exact synonyms, SKOS altLabels
    related: list[str] = field(default_factory=list)   # related, broad and narrow synonyms
    definition: str = ""
    obsolete: bool = False


FORMATS = {".obo": "obo", ".owl": "rdf", ".rdf": "rdf", ".ttl": "rdf", ".nt": "rdf", ".n3": "rdf",
           ".jsonld": "rdf", ".xml": "rdf", ".skos": "rdf", ".csv": "csv", ".tsv": "csv"}


def read_terms(path: Path, language: str = "en") -> dict[str, Term]:
    """Every term in the file, keyed by id, obsolete ones included (the branch step skips them)."""
    if path.is_dir():
        raise OntologyError(f"{path}: is a folder; give the path of an OBO, OWL, SKOS or CSV file in it")
    if not path.is_file():
        raise OntologyError(f"{path}: file not found; give the path of an OBO, OWL, SKOS or CSV file")
    kind = FORMATS.get(path.suffix.lower())
    if kind is None:
        raise OntologyError(f"{path}: unknown ontology format {path.suffix or '(no suffix)'!r}; "
                            f"use .obo, .owl, .rdf, .ttl, .jsonld or .csv")
    try:
        path.open("rb").close()
    except OSError as exc:
        raise OntologyError(f"{path}: cannot be read ({exc.strerror}); check its permissions") from None
    if kind == "obo":
        from tripartite.ontology.sources.obo import read_obo
        return read_obo(path)
    if kind == "rdf":
        from tripartite.ontology.sources.rdf import read_rdf
        return read_rdf(path, language)
    from tripartite.ontology.sources.table import read_table
    return read_table(path)


def clean(text: str) -> str:
    """One line of text: labels in published files carry stray whitespace and newlines."""
    return " ".join(str(text).split())
