"""Ontologies as they are published (issue 51), the readers' part: cross-references and codes
from every format, one id form, what a reader reads past said in counts with examples, SKOS in
several languages, abbreviations and SNOMED CT qualifiers, labels two terms share, OBO files
with malformed lines, and OWL in RDF/XML streamed, with the same terms as rdflib gives."""
from __future__ import annotations

import re
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tripartite.ontology.branch import take_branch
from tripartite.ontology.reader import OntologyError
from tripartite.ontology.sources import read_terms

# rdflib warns of an xsd:boolean it reads as false; the stream reads it so too
pytestmark = pytest.mark.filterwarnings("ignore:Parsing weird boolean:UserWarning")
FIXTURES = Path(__file__).parent / "fixtures" / "ontologies"
RAD_OBO, RAD_OWL = FIXTURES / "published" / "doid-rad-slim.obo", FIXTURES / "published" / "doid-rad-slim.owl"
THESAURUS = FIXTURES / "thesaurus-codes.ttl"
TWINS = [(RAD_OBO, RAD_OWL), (FIXTURES / "defined.obo", FIXTURES / "defined.owl")]


def line_about(terms, words: str) -> str:
    """The one report line holding the words."""
    lines = [line for line in terms.problems if words in line]
    assert len(lines) == 1, terms.problems
    return lines[0]


# ---- 1. cross-references and codes, from every format -------------------------------------------
def test_obo_xrefs_and_skos_match_values_are_cross_references():
    cardiomyopathy = read_terms(RAD_OBO)["DOID:0050700"]
    assert cardiomyopathy.xrefs == [
        "ICD10CM:I42", "ICD9CM:425", "ICD9CM:425.9", "MESH:D009202", "NCI:C34830", "NCI:C53654",
        "SNOMEDCT_US_2025_09_01:266301006", "SNOMEDCT_US_2025_09_01:89461002", "SNOMEDCT_US_2025_09_01:89600009",
        "UMLS_CUI:C0033141", "UMLS_CUI:C0036529", "UMLS_CUI:C0878544"]
    # property_value: skos:exactMatch "NCI:C26726" xsd:string, as ROBOT writes it; an xref's {source=...} is not kept
    assert read_terms(FIXTURES / "defined.obo")["XO:0000002"].xrefs == ["MESH:D003141", "NCI:C26726"]


def test_owl_db_xrefs_and_matches_are_cross_references_with_purls_as_curies():
    lyme = read_terms(FIXTURES / "defined.owl")["XO:0000004"]
    assert lyme.xrefs == ["ICD10CM:A69.20", "SNOMEDCT_US_2025_09_01:23502006", "UMLS_CUI:C0024198", "MONDO:0005508"]
    assert sum(len(t.xrefs) for t in read_terms(RAD_OWL).values()) == 563


def test_skos_notation_and_exact_and_close_matches_but_not_related_concepts():
    terms = read_terms(THESAURUS)
    hypertension = terms["http://example.org/icd/I10"]
    assert hypertension.notation == "I10"
    assert hypertension.xrefs == ["DOID:10825", "MESH:D000075222"]  # a MeSH IRI as the CURIE DOID's xrefs write
    # skos:related names another concept, not this one: not a synonym, not a cross-reference
    assert "http://example.org/icd/I11" not in hypertension.xrefs + hypertension.exact + hypertension.related
    assert hypertension.definition == "Hypertension with no known cause."


@pytest.mark.parametrize("written, read", [
    ("http://id.nlm.nih.gov/mesh/D009203", "MESH:D009203"), ("http://snomed.info/id/22298006", "SNOMEDCT:22298006"),
    ("http://purl.obolibrary.org/obo/DOID_5844", "DOID:5844"), ("http://www.wikidata.org/entity/Q12152", "WIKIDATA:Q12152"),
    ("ICD10CM:I21", "ICD10CM:I21"), ("http://example.org/codes/I21", "http://example.org/codes/I21"),
    ("http://id.nlm.nih.gov/mesh/", "http://id.nlm.nih.gov/mesh/"),  # a namespace alone names no code
])
def test_cross_references_written_as_iris_of_known_code_systems_read_as_curies(written, read):
    from tripartite.ontology.sources import code

    assert code(written) == read


def test_csv_xref_notation_and_abbreviation_columns_are_read(tmp_path):
    table = tmp_path / "codes.csv"
    table.write_text("id,name,parent,synonyms,abbreviations,xref,code\n"
                     "R,cardiovascular disease,,,,,I\n"
                     "H,hypertension,R,high blood pressure,HTN,MESH:D006973|ICD10CM:I10; SNOMEDCT:38341003,I10\n",
                     encoding="utf-8")
    hypertension = read_terms(table)["H"]
    assert hypertension.xrefs == ["MESH:D006973", "ICD10CM:I10", "SNOMEDCT:38341003"]
    assert hypertension.notation == "I10" and hypertension.abbreviations == ["HTN"]
    assert hypertension.exact == ["high blood pressure"]
    both = tmp_path / "both.csv"
    both.write_text("id,name,xrefs,notation,code\nR,root,,I,I\n", encoding="utf-8")
    with pytest.raises(OntologyError, match="notation and code both"):
        read_terms(both)


# ---- 2. one id form -----------------------------------------------------------------------------
def sorted_fields(term) -> dict:
    """A term's fields, its lists as sets: ROBOT orders synonyms one way in OBO, another in OWL."""
    return {key: sorted(value) if isinstance(value, list) else value for key, value in vars(term).items()}


@pytest.mark.parametrize("obo, owl", TWINS, ids=["doid-rad-slim", "defined"])
def test_an_obo_file_and_its_owl_twin_read_alike(obo, owl):
    from_obo, from_owl = read_terms(obo), read_terms(owl)
    assert list(from_obo) and set(from_obo) == set(from_owl)
    assert all(re.fullmatch(r"[A-Z]+:\d+", term_id) for term_id in from_owl)  # PURLs read as CURIEs
    assert {k: sorted_fields(t) for k, t in from_obo.items()} == {k: sorted_fields(t) for k, t in from_owl.items()}
    assert from_obo.problems == from_owl.problems


def test_an_obo_and_an_owl_import_of_a_slim_give_the_same_concepts():
    def branch(path: Path):
        taken = take_branch(read_terms(path), "DOID:0050161", str(path))
        return {c["source"]: (c["name"], sorted(c.get("broader", []))) for k in taken.classes for c in k["concepts"]}

    from_obo = branch(RAD_OBO)
    assert from_obo and from_obo == branch(RAD_OWL)
    # the root is found by its PURL as well
    assert take_branch(read_terms(RAD_OWL), "http://purl.obolibrary.org/obo/DOID_0050161", "x").root.id == \
        "DOID:0050161"


# ---- 3. what the readers read past ------------------------------------------------------------------
@pytest.mark.parametrize("path", [FIXTURES / "defined.owl", FIXTURES / "defined.obo"])
def test_logical_definitions_give_parents_and_the_rest_is_reported(path):
    terms = read_terms(path)
    # defined only by owl:equivalentClass [intersectionOf (XO:0000002, restriction)]: its named class is its parent
    assert terms["XO:0000003"].parents == ["XO:0000002"]
    assert line_about(terms, "defined only by a logical definition").startswith("1 term(s)")
    # a union names no class to be under: no parents, and said so
    assert terms["XO:0000005"].parents == []
    assert "XO:0000005 (tick-borne or sclerosing disease)" in line_about(terms, "names no class to be under")
    assert line_about(terms, "obsolete term(s)") == \
        "1 obsolete term(s) (e.g. XO:0000008 (obsolete Lyme arthritis)): not taken into any branch"


def test_rdfs_comment_is_a_note_not_a_definition_and_is_counted():
    terms = read_terms(RAD_OWL)
    assert terms["DOID:0050700"].definition.startswith("A heart disease and a myopathy")  # IAO_0000115
    notes = line_about(terms, "curators' notes")
    assert notes.startswith("17 comment(s)") and "DOID:0050700: 'MESH:D009202 added from NeuroDevNet [WAK].'" in notes
    bacterial = read_terms(FIXTURES / "defined.owl")["XO:0000003"]
    assert bacterial.definition == "An infectious disease caused by bacteria."  # not the comment beside it


def test_a_skos_concept_labelled_only_in_other_languages_is_named_after_its_id_and_reported():
    terms = read_terms(THESAURUS, "en")
    assert terms["http://example.org/icd/I15"].name == "I15"  # not the German label
    assert terms["http://example.org/icd/I20"].name == "I20"
    line = line_about(terms, "but none in en nor untagged")
    assert line.startswith("2 term(s)") and "http://example.org/icd/I15 (de)" in line
    assert terms["http://example.org/icd/I11"].name == "Hypertensive heart disease"  # en-GB is English


# ---- 4. SKOS in the languages asked for ----------------------------------------------------------
@pytest.mark.parametrize("languages", ["en,de", ["en", "de"], "en, de"])
def test_skos_takes_every_language_named_first_one_first(languages):
    terms = read_terms(THESAURUS, languages)
    hypertension = terms["http://example.org/icd/I10"]
    assert hypertension.name == "Essential (primary) hypertension"
    assert hypertension.exact == ["Essentielle (primäre) Hypertonie", "high blood pressure", "Bluthochdruck"]
    assert "HTA" not in hypertension.exact and "Hypertension essentielle" not in hypertension.exact  # French: not asked
    assert terms["http://example.org/icd/I15"].name == "Sekundäre Hypertonie"  # no English label: the German one
    assert line_about(terms, "but none in en, de").startswith("1 term(s) with labels")


def test_the_first_language_named_gives_the_name():
    hypertension = read_terms(THESAURUS, ["de", "en"])["http://example.org/icd/I10"]
    assert hypertension.name == "Essentielle (primäre) Hypertonie"
    assert hypertension.exact[0] == "Essential (primary) hypertension"


def test_the_turtle_and_rdf_xml_thesaurus_read_alike():
    for languages in ("en", "en,de"):
        turtle, xml = read_terms(THESAURUS, languages), read_terms(FIXTURES / "thesaurus-codes.rdf", languages)
        assert turtle == xml and turtle.problems == xml.problems


# ---- 5. synonym types and SNOMED CT qualifiers --------------------------------------------------------
@pytest.mark.parametrize("path", [RAD_OBO, RAD_OWL])
def test_abbreviations_are_kept_apart_from_exact_synonyms(path):
    medulloblastoma = read_terms(path)["DOID:0050902"]  # synonym: "CNS PNET" EXACT OMO:0003012 [] (an acronym)
    assert sorted(medulloblastoma.abbreviations) == ["CNS PNET", "CPNET"]
    assert "CNS PNET" not in medulloblastoma.exact and "brain medulloblastoma" in medulloblastoma.exact


@pytest.mark.parametrize("path", [FIXTURES / "defined.owl", FIXTURES / "defined.obo"])
def test_snomed_qualifiers_are_taken_off_and_repeats_dropped_in_one_line(path):
    terms = read_terms(path)
    lyme = terms["XO:0000004"]
    # "Lyme disease (disorder)" is the name again; the others read bare
    assert lyme.exact == ["Borreliosis", "Lyme borreliosis"] and lyme.related == ["Lyme arthritis"]
    assert lyme.abbreviations == ["LD"]
    line = line_about(terms, "SNOMED CT qualifiers")
    assert line.startswith("4 synonym(s) with SNOMED CT qualifiers (2 with a semantic tag such as '(disorder)', "
                           "2 with 'NOS')")
    assert "'Lyme disease (disorder)' -> dropped" in line and "1 of them then repeated the name" in line


def test_a_nos_variant_is_dropped_when_the_bare_text_is_already_a_synonym(tmp_path):
    obo = tmp_path / "nos.obo"
    obo.write_text('format-version: 1.2\n\n[Term]\nid: X:1\nname: asbestosis\nsynonym: "Asbestosis NOS (disorder)" '
                   'EXACT []\nsynonym: "Tonsillitis, NOS" EXACT []\nsynonym: "tonsillitis" EXACT []\n', encoding="utf-8")
    assert read_terms(obo)["X:1"].exact == ["tonsillitis"]


# ---- 6. labels two terms share ----------------------------------------------------------------------
def test_labels_two_terms_share_are_reported_with_both():
    terms = read_terms(FIXTURES / "defined.owl")
    assert line_about(terms, "naming two or more terms") == (
        "1 label(s) naming two or more terms, as a name, an exact synonym or an abbreviation (e.g. scleroderma: "
        "XO:0000006 (name), XO:0000007 (synonym)): reported only; a text using one may mean any of them")
    assert terms["XO:0000007"].exact == ["Scleroderma"]  # reported, not dropped: the branch decides


# ---- 7. OBO with malformed lines ------------------------------------------------------------------
BROKEN = {  # a line of the RAD slim (its text starts so) -> how it is broken
    "format-version: 1.2": "format-version 1.2",                          # header: no colon
    'def: "A respiratory system disease which involves': None,           # def: references with spaces (doid 2015)
    "is_a: DOID:114 ! heart disease": "is_a DOID:114 ! heart disease",     # no colon
    'synonym: "brain medulloblastoma" EXACT []': 'synonym: "brain medulloblastoma EXACT []',  # quote never closed
    "id: DOID:0050851": "id DOID:0050851",                                # the id line: the frame goes
}


def broken_slim(tmp_path: Path) -> tuple[Path, list[int]]:
    """The RAD slim with five lines broken in different ways, and their line numbers."""
    lines = RAD_OBO.read_text(encoding="utf-8").split("\n")
    numbers = []
    for start, replacement in BROKEN.items():
        number = next(i for i, line in enumerate(lines) if line.startswith(start))
        lines[number] = replacement or re.sub(r"\[[^\]]*\]$", "[JA:Epilepsy Genetics Kiel, url:http\\://x.org]",
                                              lines[number])
        numbers.append(number + 1)
    path = tmp_path / "broken.obo"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path, numbers


def test_malformed_obo_lines_are_skipped_and_listed_and_the_rest_read(tmp_path):
    path, numbers = broken_slim(tmp_path)
    terms, whole = read_terms(path), read_terms(RAD_OBO)
    assert set(terms) == set(whole) - {"DOID:0050851"}  # the frame whose id line broke
    respiratory = terms["DOID:0050161"]  # its def line went; its name, xrefs and is_a stayed
    assert respiratory.definition == "" and respiratory.parents == ["DOID:1579"] and len(respiratory.xrefs) == 3
    assert terms["DOID:0050700"].parents == [] and terms["DOID:0050700"].name == "cardiomyopathy"
    assert "brain medulloblastoma" not in terms["DOID:0050902"].exact
    assert len(terms["DOID:0050902"].exact) == len(whole["DOID:0050902"].exact) - 1
    skipped = line_about(terms, "malformed OBO line(s) skipped")
    assert skipped.startswith("4 malformed OBO line(s) skipped (e.g. line 1 'format-version 1.2', ")
    assert f"(lines {', '.join(map(str, sorted(numbers[:4])))})" in skipped and "--strict" in skipped
    frames = line_about(terms, "skipped whole")
    assert frames.startswith(f"1 OBO frame(s) skipped whole, their header or id line being malformed (e.g. line "
                             f"{numbers[4] - 1} '[Term] id DOID:0050851')")


def test_strict_refuses_a_malformed_obo_file_at_its_first_bad_line(tmp_path):
    path, _ = broken_slim(tmp_path)
    with pytest.raises(OntologyError) as caught:
        read_terms(path, strict=True)
    assert str(caught.value).startswith(f"{path}: not a valid OBO file (") and "line 1)" in str(caught.value)
    assert read_terms(RAD_OBO, strict=True) == read_terms(RAD_OBO)


def test_a_valid_obo_file_never_takes_the_salvage_path(monkeypatch):
    from tripartite.ontology.sources import obo_salvage

    def refuse(*_):
        raise AssertionError("a valid file is parsed in one go")

    monkeypatch.setattr(obo_salvage, "salvage", refuse)
    assert len(read_terms(RAD_OBO)) == 81


def test_many_malformed_lines_read_in_bounded_time(tmp_path):
    """Every is_a of 20 copies of the slim broken (2,000 lines, a frame in two broken): read about once."""
    text = RAD_OBO.read_text(encoding="utf-8")
    frames = text[text.index("[Term]"):]
    copies = [re.sub(r"DOID:(\d+)", lambda m: f"C{n}:{m.group(1)}", frames) for n in range(20)]
    path = tmp_path / "many.obo"
    path.write_text(text[:text.index("[Term]")] + "".join(copies).replace("is_a: ", "is_a "), encoding="utf-8")
    started = time.monotonic()
    terms = read_terms(path)
    assert time.monotonic() - started < 10 and len(terms) == 20 * 81
    assert line_about(terms, "malformed OBO line(s)").startswith(f"{text.count('is_a: ') * 20:,} malformed")


def test_an_obo_file_with_nothing_readable_is_still_refused(tmp_path):
    path = tmp_path / "nothing.obo"
    path.write_text("this is not OBO\n[Term]\nid X:1\n", encoding="utf-8")
    with pytest.raises(OntologyError, match="not a valid OBO file"):
        read_terms(path)


# ---- 8. OWL in RDF/XML, streamed ------------------------------------------------------------------
RDF_XML = [FIXTURES / name for name in ("machines.owl", "machines-entities.owl", "defined.owl", "thesaurus-codes.rdf",
                                        "published/doid-rad-slim.owl")]


def both_ways(path: Path, data: bytes | None = None, languages=("en",)):
    """The terms of an RDF/XML file by the stream and by rdflib: the stream's None for a file it
    leaves to rdflib, rdflib's None for one it refuses (which the stream must have left to it)."""
    from xml.parsers import expat

    from tripartite.ontology.sources.rdf import _parse, graph_facts
    from tripartite.ontology.sources.rdf_terms import terms_from_facts
    from tripartite.ontology.sources.rdfxml import checked_utf8
    from tripartite.ontology.sources.rdfxml_stream import Unrecognised, stream_facts

    checked = checked_utf8(path, path.read_bytes() if data is None else data)
    try:
        streamed = terms_from_facts(stream_facts(checked, path.resolve().as_uri()), list(languages))
    except (Unrecognised, expat.ExpatError, ValueError):  # as rdf.py does: rdflib reads it, or says why not
        streamed = None
    try:
        return streamed, terms_from_facts(graph_facts(_parse(path, checked, "xml")), list(languages))
    except OntologyError:
        assert streamed is None, "the stream read what rdflib refuses"
        return None, None


@pytest.mark.parametrize("path", RDF_XML, ids=lambda p: p.name)
def test_the_stream_and_rdflib_give_the_same_terms(path):
    streamed, by_rdflib = both_ways(path)
    assert streamed is not None and streamed == by_rdflib and streamed.problems == by_rdflib.problems


def test_rdf_xml_in_another_shape_is_left_to_rdflib(tmp_path):
    """rdf:ID (a name relative to the document) is not the stream's: rdflib reads the file."""
    owl = tmp_path / "ids.owl"
    owl.write_text('<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
                   'xmlns:rdfs="http://www.w3.org/2000/01/rdf-schema#" xmlns:owl="http://www.w3.org/2002/07/owl#" '
                   'xml:base="http://x.org/o">\n<owl:Class rdf:ID="a"><rdfs:label>a</rdfs:label></owl:Class>\n'
                   '<owl:Class rdf:ID="b"><rdfs:subClassOf rdf:resource="#a"/></owl:Class>\n</rdf:RDF>\n',
                   encoding="utf-8")
    streamed, by_rdflib = both_ways(owl)
    assert streamed is None and read_terms(owl)["http://x.org/o#b"].parents == ["http://x.org/o#a"]


def test_an_owl_release_is_read_without_rdflib():
    """The stream, not rdflib's graph: rdflib is never imported for ROBOT's RDF/XML."""
    code = ("import sys; from pathlib import Path; from tripartite.ontology.sources import read_terms; "
            f"terms = read_terms(Path({str(RAD_OWL)!r})); print(len(terms), 'rdflib' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["81", "False"], done.stderr


# Statements spliced into the fixtures: each shape the stream reads, and some it leaves to rdflib.
PROPERTIES = [
    '<rdfs:label xml:lang="de">Etikett</rdfs:label>', '<rdfs:label>plain</rdfs:label>', '<rdfs:label/>',
    '<rdfs:label rdf:parseType="Literal">a <b>bold</b> label</rdfs:label>',
    '<rdfs:label rdf:datatype="http://www.w3.org/2001/XMLSchema#string">typed</rdfs:label>',
    '<rdfs:subClassOf rdf:resource="http://x.org/p"/>', '<rdfs:subClassOf rdf:resource="#frag"/>',
    '<rdfs:subClassOf><owl:Class rdf:about="http://x.org/nested"><rdfs:label>in</rdfs:label></owl:Class></rdfs:subClassOf>',
    '<rdfs:subClassOf rdf:nodeID="g1"/>', '<rdfs:subClassOf rdf:parseType="Resource"><rdfs:label>x</rdfs:label>'
    '</rdfs:subClassOf>', '<owl:deprecated>true</owl:deprecated>',
    '<owl:deprecated rdf:datatype="http://www.w3.org/2001/XMLSchema#boolean"> true </owl:deprecated>',
    '<owl:equivalentClass><owl:Class><owl:intersectionOf rdf:parseType="Collection"><rdf:Description '
    'rdf:about="http://x.org/g"/><owl:Class rdf:about="http://x.org/g2"/></owl:intersectionOf></owl:Class>'
    '</owl:equivalentClass>', '<owl:equivalentClass rdf:resource="http://x.org/same"/>',
    '<skos:prefLabel xml:lang="EN-us">pref</skos:prefLabel>', '<skos:notation>007</skos:notation>',
    '<skos:exactMatch rdf:resource="http://purl.obolibrary.org/obo/MONDO_1"/>',
    '<skos:narrower rdf:resource="http://x.org/kid"/>', '<oboInOwl:hasDbXref>MESH:1</oboInOwl:hasDbXref>',
    '<rdf:type rdf:resource="http://www.w3.org/2004/02/skos/core#Concept"/>', '<rdfs:comment>note</rdfs:comment>',
    '<rdf:li>li</rdf:li>', '<rdfs:label rdf:ID="r1">reified</rdfs:label>', '<rdfs:seeAlso>x<owl:Class/></rdfs:seeAlso>',
]
NODES = [
    '<owl:Class rdf:about="http://x.org/new"><rdfs:label>new</rdfs:label></owl:Class>',
    '<rdf:Description rdf:about="http://x.org/d"><rdfs:subClassOf rdf:resource="http://x.org/p"/></rdf:Description>',
    '<owl:Class rdf:nodeID="g1"><rdfs:label>blank</rdfs:label></owl:Class>',
    '<owl:Class xml:base="http://y.org/base/" rdf:about="rel"><rdfs:label>based</rdfs:label></owl:Class>',
    '<owl:Class rdf:about="http://x.org/lang" xml:lang="fr"><rdfs:label>fr</rdfs:label></owl:Class>',
    '<owl:Axiom><owl:annotatedSource rdf:resource="http://x.org/new"/><owl:annotatedProperty rdf:resource='
    '"http://www.geneontology.org/formats/oboInOwl#hasExactSynonym"/><owl:annotatedTarget>new</owl:annotatedTarget>'
    '<oboInOwl:hasSynonymType rdf:resource="http://purl.obolibrary.org/obo/OMO_0003000"/></owl:Axiom>',
    '<owl:Class rdf:ID="local"/>', '<owl:Class rdf:about="http://x.org/attributes" rdfs:label="attribute"/>',
]
NAMESPACES = {"skos": "http://www.w3.org/2004/02/skos/core#", "oboInOwl": "http://www.geneontology.org/formats/oboInOwl#",
              "owl": "http://www.w3.org/2002/07/owl#", "rdfs": "http://www.w3.org/2000/01/rdf-schema#"}


@st.composite
def spliced(draw) -> str:
    """A fixture with statements spliced into its node elements and new nodes at its end."""
    text = draw(st.sampled_from(RDF_XML[:4])).read_text(encoding="utf-8")
    root = text.index("<rdf:RDF")
    declared = text[root:text.index(">", root)]
    text = text[:root + 8] + "".join(f' xmlns:{p}="{iri}"' for p, iri in NAMESPACES.items()
                                     if f"xmlns:{p}=" not in declared) + text[root + 8:]
    opens = [m.end() for m in re.finditer(r"<(?:owl:Class|skos:Concept) rdf:about=\"[^\"]*\">", text)]
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):
            at = draw(st.sampled_from(opens))
            text = text[:at] + draw(st.sampled_from(PROPERTIES)) + text[at:]
            opens = [m.end() for m in re.finditer(r"<(?:owl:Class|skos:Concept) rdf:about=\"[^\"]*\">", text)]
        else:
            at = text.rindex("</rdf:RDF>")
            text = text[:at] + draw(st.sampled_from(NODES)) + text[at:]
    return text


@settings(max_examples=60, deadline=timedelta(seconds=5))
@given(spliced(), st.sampled_from([("en",), ("en", "de")]))
def test_the_stream_agrees_with_rdflib_or_leaves_the_file_to_it(text, languages):
    path = Path("/nonexistent/spliced.owl")  # only its name and suffix are used: the bytes are given
    streamed, by_rdflib = both_ways(path, text.encode("utf-8"), languages)
    assert streamed is None or (streamed == by_rdflib and streamed.problems == by_rdflib.problems)
