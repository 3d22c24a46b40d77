"""Reading published ontologies into one shape: a term with its parents, exact and related
synonyms, definition and obsolete flag. One module per family of formats: obo.py (OBO 1.4
via fastobo), rdf.py (OWL and SKOS in any RDF syntax via rdflib, RDF/XML through the guards
of rdfxml.py), table.py (CSV).

The readers take any file a user may be handed: they read the one file named (never the
network, never another file), refuse what could expand or run away (entity tricks, remote
JSON-LD contexts, files over the size limit), and end every other problem in one line."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from tripartite.ontology.constants import MAX_MB
from tripartite.ontology.reader import OntologyError


@dataclass
class Term:
    # One id form whatever the format: an OBO term is its CURIE (DOID:1234) from OBO and from
    # OWL alike (the PURL http://purl.obolibrary.org/obo/DOID_1234 is read as DOID:1234); any
    # other term its IRI, or its CSV id.
    id: str
    name: str = ""
    parents: list[str] = field(default_factory=list)
    exact: list[str] = field(default_factory=list)     # exact synonyms, SKOS altLabels
    related: list[str] = field(default_factory=list)   # related, broad and narrow synonyms
    definition: str = ""
    obsolete: bool = False
    # Codes of the same thing elsewhere, as PREFIX:LOCAL where the file gives one (OBO xref,
    # oboInOwl:hasDbXref: MESH:D003920, ICD10CM:E11.9, UMLS_CUI:C0011849), else the IRI (SKOS
    # exactMatch, closeMatch); and the term's own code in its scheme (SKOS notation: I10).
    xrefs: list[str] = field(default_factory=list)
    notation: str = ""
    abbreviations: list[str] = field(default_factory=list)  # exact synonyms typed as abbreviations (OMO:0003000)


class Terms(dict[str, Term]):
    """The terms of a file keyed by id, and what its reader reported while reading them (a
    term defined twice, say), one line each for the import report."""

    def __init__(self) -> None:
        super().__init__()
        self.problems: list[str] = []


FORMATS = {".obo": "obo", ".owl": "rdf", ".rdf": "rdf", ".ttl": "rdf", ".nt": "rdf", ".n3": "rdf",
           ".jsonld": "rdf", ".xml": "rdf", ".skos": "rdf", ".csv": "csv", ".tsv": "csv"}


def read_terms(path: Path, language: str = "en", max_mb: float = MAX_MB) -> Terms:
    """Every term in the file, keyed by id, obsolete ones included (the branch step skips them)."""
    if path.is_dir():
        raise OntologyError(f"{path}: is a folder; give the path of an OBO, OWL, SKOS or CSV file in it")
    if not path.exists():
        raise OntologyError(f"{path}: file not found; give the path of an OBO, OWL, SKOS or CSV file")
    if not path.is_file():  # a pipe or a device: reading could block or never end
        raise OntologyError(f"{path}: not a regular file; give the path of an OBO, OWL, SKOS or CSV file")
    kind = FORMATS.get(path.suffix.lower())
    if kind is None:
        raise OntologyError(f"{path}: unknown ontology format {path.suffix or '(no suffix)'!r}; "
                            f"use .obo, .owl, .rdf, .ttl, .jsonld or .csv")
    data = read_bounded(path, max_mb)
    if kind == "obo":
        from tripartite.ontology.sources.obo import read_obo
        return read_obo(path, data)
    if kind == "rdf":
        from tripartite.ontology.sources.rdf import read_rdf
        return read_rdf(path, data, language)
    from tripartite.ontology.sources.table import read_table
    return read_table(path, data)


def read_bounded(path: Path, max_mb: float) -> bytes:
    """The file's bytes, at most max_mb of them: the size on disk is checked first, and the
    read stops past the limit too, for files that report no size (/proc)."""
    limit = int(max_mb * 2**20)
    try:
        size, data = path.stat().st_size, b""
        if size <= limit:
            with path.open("rb") as file:
                data = file.read(limit + 1)
    except OSError as exc:
        raise OntologyError(f"{path}: cannot be read ({exc.strerror}); check its permissions") from None
    if size > limit or len(data) > limit:
        mb = max(size, limit + 1) / 2**20
        raise OntologyError(f"{path}: {mb:.2f} MB, above the {max_mb:g} MB limit for ontology files; pass "
                            f"--max-mb {math.ceil(mb)} to read it (reading needs several times that in memory)")
    return data


def utf8_text(path: Path, data: bytes, hint: str = "") -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise OntologyError(f"{path}: not UTF-8 text; save it as UTF-8{hint}") from None


def clean(text: str) -> str:
    """One line of text: labels in published files carry stray whitespace and newlines."""
    return " ".join(str(text).split())
