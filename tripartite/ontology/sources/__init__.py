"""Reading published ontologies into one shape: a term with its parents, exact and related
synonyms, abbreviations, definition, cross-references, notation and obsolete flag. One module
per family of formats: obo.py (OBO 1.4 via fastobo, obo_salvage.py for files with malformed
lines), rdf.py (OWL and SKOS: RDF/XML as OWLAPI and ROBOT write it streamed by
rdfxml_stream.py, anything else through rdflib, RDF/XML behind the guards of rdfxml.py; both
give facts that rdf_terms.py turns into terms), table.py (CSV); review.py then looks at the
labels of every format alike (SNOMED qualifiers, labels two terms share).

The readers take any file a user may be handed: they read the one file named (never the
network, never another file), refuse what could expand or run away (entity tricks, remote
JSON-LD contexts, files over the size limit), and end every other problem in one line. What
they read past (obsolete terms, malformed OBO lines, comments that are not definitions...)
they say on Terms.problems, one line per kind: a count and a few examples."""
from __future__ import annotations

import math
import re
from collections.abc import Sequence
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
    # Exact synonyms typed as abbreviations or acronyms (OMO:0003000, OMO:0003012): kept here
    # and not in `exact`, so that each label is in one list and a short, ambiguous form ("HD")
    # can be treated apart from the names it stands for.
    abbreviations: list[str] = field(default_factory=list)


class Terms(dict[str, Term]):
    """The terms of a file keyed by id, and what its reader reported while reading them (a
    term defined twice, say), one line each for the import report."""

    def __init__(self) -> None:
        super().__init__()
        self.problems: list[str] = []


FORMATS = {".obo": "obo", ".owl": "rdf", ".rdf": "rdf", ".ttl": "rdf", ".nt": "rdf", ".n3": "rdf",
           ".jsonld": "rdf", ".xml": "rdf", ".skos": "rdf", ".csv": "csv", ".tsv": "csv"}


def read_terms(path: Path, language: str | Sequence[str] = "en", max_mb: float = MAX_MB,
               strict: bool = False) -> Terms:
    """Every term in the file, keyed by id, obsolete ones included (the branch step skips them).
    `language`: the label languages of OWL and SKOS, first choice first ("en", "en,de" or a
    list). `strict`: refuse an OBO file at its first malformed line instead of skipping such
    lines and listing them."""
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
    languages = language_list(language)
    data = read_bounded(path, max_mb)
    if not data.strip():
        raise OntologyError(f"{path}: the file is empty; give an OBO, OWL, SKOS or CSV file that holds terms")
    if kind == "obo":
        from tripartite.ontology.sources.obo import read_obo
        terms = read_obo(path, data, strict)
    elif kind == "rdf":
        from tripartite.ontology.sources.rdf import read_rdf
        terms = read_rdf(path, data, languages)
    else:
        from tripartite.ontology.sources.table import read_table
        terms = read_table(path, data)
    from tripartite.ontology.sources.review import review
    review(terms)
    return terms


LANGUAGE_TAG = re.compile(r"[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*")


def language_list(language: str | Sequence[str]) -> list[str]:
    """The languages asked for, in order: a list, or one string of them separated by commas."""
    given = language.split(",") if isinstance(language, str) else list(language)
    languages = list(dict.fromkeys(tag.strip().lower() for tag in given if tag.strip()))
    bad = [tag for tag in languages if not LANGUAGE_TAG.fullmatch(tag)]
    if bad or not languages:
        raise OntologyError(f"--language {','.join(given)!r}: give language tags separated by commas, e.g. en or en,de")
    return languages


OBO_PURL = re.compile(r"http://purl\.obolibrary\.org/obo/([A-Za-z][A-Za-z0-9]*)_([A-Za-z0-9][A-Za-z0-9_.\-]*)")


ABBREVIATION_TYPES = {"OMO:0003000", "OMO:0003012"}  # abbreviation, and acronym (a kind of it) as DOID types them
MATCHES = {"skos:exactMatch", "skos:closeMatch", "http://www.w3.org/2004/02/skos/core#exactMatch",
           "http://www.w3.org/2004/02/skos/core#closeMatch"}  # the same thing elsewhere: cross-references


def is_abbreviation(synonym_type: str) -> bool:
    """A synonym type that marks abbreviations: OMO's, or a file's own named so (older OBO
    files declare `synonymtypedef: ACRONYM`)."""
    return curie(synonym_type) in ABBREVIATION_TYPES or \
        re.split(r"[#/:]", synonym_type)[-1].lower() in {"abbreviation", "acronym"}


def curie(identifier: str) -> str:
    """The one id form: an OBO PURL (http://purl.obolibrary.org/obo/DOID_1234) as its CURIE
    (DOID:1234), as OBO files write it; any other id or IRI unchanged."""
    match = OBO_PURL.fullmatch(identifier)
    return f"{match.group(1)}:{match.group(2)}" if match else identifier


# Where a vocabulary names codes by IRI, the IRIs of the code systems clinical and industrial
# files cite most, read as the prefix OBO files give the same codes: a MeSH match written
# http://id.nlm.nih.gov/mesh/D009203 is the MESH:D009203 a DOID xref writes.
CODE_NAMESPACES = {
    "http://id.nlm.nih.gov/mesh/": "MESH", "https://id.nlm.nih.gov/mesh/": "MESH",
    "http://purl.bioontology.org/ontology/MESH/": "MESH", "http://identifiers.org/mesh/": "MESH",
    "https://identifiers.org/mesh:": "MESH",
    "http://snomed.info/id/": "SNOMEDCT", "http://purl.bioontology.org/ontology/SNOMEDCT/": "SNOMEDCT",
    "http://purl.bioontology.org/ontology/ICD10CM/": "ICD10CM", "http://purl.bioontology.org/ontology/ICD10/": "ICD10",
    "http://linkedlifedata.com/resource/umls/id/": "UMLS_CUI",
    "http://ncicb.nci.nih.gov/xml/owl/EVS/Thesaurus.owl#": "NCI",
    "http://www.wikidata.org/entity/": "WIKIDATA", "https://www.wikidata.org/wiki/": "WIKIDATA",
}


def code(identifier: str) -> str:
    """A cross-reference in the one form: an OBO PURL as its CURIE, an IRI of a known code system
    (CODE_NAMESPACES) as PREFIX:LOCAL, anything else as written."""
    for namespace, prefix in CODE_NAMESPACES.items():
        if identifier.startswith(namespace) and len(identifier) > len(namespace):
            return f"{prefix}:{identifier[len(namespace):]}"
    return curie(identifier)


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
