"""Published ontologies end to end: the Human Disease Ontology's RAD slim (OBO, CC0) and a SKOS
vocabulary in English and German written for these tests, imported, counted against an
independent reading of each file, loaded, found by code, name and synonym, and removed without
a trace. The figures asserted here are the ones docs/ontologies.md gives."""
from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

import pytest
import yaml

from conftest import invoke, ok

FIXTURES = Path(__file__).parent / "fixtures" / "ontologies"
RAD_SLIM = FIXTURES / "published" / "doid-rad-slim.obo"
VOCABULARY = FIXTURES / "cardio-vocabulary.ttl"
SCHEME = "http://example.org/cardio-vocabulary/scheme"
ABBREVIATION_TYPES = ("OMO:0003000", "OMO:0003012")


def import_summary(tmp_path: Path, path: Path, root: str, name: str, *extra: str, env: dict | None = None):
    summary = json.loads(ok(["ontology", "import", str(path), "--root", root, "--name", name, "--out", str(tmp_path),
                             "--json", *extra], env or {}))
    data = yaml.safe_load(Path(summary["folder"], "ontology.yaml").read_text(encoding="utf-8"))
    return summary, {c["id"]: {**c, "class": k["id"]} for k in data["classes"] for c in k["concepts"]}


# ---- independent readings ------------------------------------------------------------------------
def obo_frames(path: Path) -> dict[str, dict]:
    """Each live [Term] of an OBO file by plain line matching: name, is_a, exact synonyms (typed
    abbreviations apart) and xrefs (skos:exactMatch and closeMatch values included)."""
    terms, current = {}, None
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("["):
            current = {"is_a": [], "exact": [], "abbreviations": [], "xrefs": [], "obsolete": False} \
                if line == "[Term]" else None
        elif current is not None and ": " in line:
            tag, value = line.split(": ", 1)
            if tag == "id":
                terms[value] = current
            elif tag == "name":
                current["name"] = value
            elif tag == "is_a":
                current["is_a"].append(value.split(" ")[0])
            elif tag == "xref":
                current["xrefs"].append(value.split(" ")[0])
            elif tag == "property_value" and value.startswith(("skos:exactMatch ", "skos:closeMatch ")):
                current["xrefs"].append(value.split(" ")[1].strip('"'))  # a match is a code elsewhere too
            elif tag == "is_obsolete":
                current["obsolete"] = value.strip() == "true"
            elif tag == "synonym":
                text, rest = re.match(r'"((?:[^"\\]|\\.)*)" (.*)', value).groups()
                if rest.startswith("EXACT"):
                    typed = rest.split(" ")[1] if len(rest.split(" ")) > 2 else ""
                    current["abbreviations" if typed in ABBREVIATION_TYPES else "exact"].append(text)
    return {term_id: term for term_id, term in terms.items() if not term["obsolete"]}


def below(root: str, parents: dict[str, list[str]]) -> set[str]:
    children = defaultdict(set)
    for term, ups in parents.items():
        for up in ups:
            children[up].add(term)
    found, todo = set(), [root]
    while todo:
        for child in children[todo.pop()] - found:
            found.add(child)
            todo.append(child)
    return found


def skos_concepts() -> dict[str, dict]:
    """The vocabulary's live concepts read with SPARQL over rdflib's graph: labels per language,
    notation, matches and broader links (skos:narrower read as its inverse)."""
    import rdflib

    graph = rdflib.Graph().parse(VOCABULARY, format="turtle")
    live = """PREFIX skos: <http://www.w3.org/2004/02/skos/core#> PREFIX owl: <http://www.w3.org/2002/07/owl#>
              SELECT ?c WHERE { ?c a skos:Concept FILTER NOT EXISTS { ?c owl:deprecated true } }"""
    concepts = {str(row.c): {"labels": [], "matches": [], "broader": set()} for row in graph.query(live)}
    skos = rdflib.Namespace("http://www.w3.org/2004/02/skos/core#")
    for iri, concept in concepts.items():
        node = rdflib.URIRef(iri)
        concept["labels"] = [(str(o), o.language) for p in (skos.prefLabel, skos.altLabel) for o in graph.objects(node, p)]
        concept["notation"] = str(graph.value(node, skos.notation))
        concept["matches"] = [str(o) for p in (skos.exactMatch, skos.closeMatch) for o in graph.objects(node, p)]
        concept["broader"] = {str(o) for o in graph.objects(node, skos.broader)} | \
                             {str(s) for s in graph.subjects(skos.narrower, node)}
    return concepts


# ---- the DOID slim -------------------------------------------------------------------------------
def test_the_doid_slim_imports_every_term_with_its_codes_and_hierarchy(tmp_path):
    """Under DOID:4 (disease): every live term a concept, every is_a a broader link, every xref,
    exact synonym and abbreviation kept, as a plain reading of the file counts them."""
    frames = obo_frames(RAD_SLIM)
    under = below("DOID:4", {t: f["is_a"] for t, f in frames.items()})
    summary, concepts = import_summary(tmp_path, RAD_SLIM, "DOID:4", "rad")
    by_source = {c["source"]: c for c in concepts.values()}
    assert set(by_source) == under and summary["concepts"] == len(under) == 80
    assert summary["classes"] == 4  # the root's four children, each a concept of its own class too
    assert sum(len(c.get("xrefs", [])) for c in concepts.values()) == sum(len(set(frames[t]["xrefs"])) for t in under) == 559
    links = sum(1 for t in under for p in frames[t]["is_a"] if p in under)
    assert sum(len(c.get("broader", [])) for c in concepts.values()) == links
    for term_id in under:
        concept, frame = by_source[term_id], frames[term_id]
        assert concept["name"] == frame["name"] and concept.get("xrefs", []) == list(dict.fromkeys(frame["xrefs"]))
        assert set(concept.get("synonyms", [])) == {s for s in frame["exact"] if s.casefold() != frame["name"].casefold()}
        assert set(concept.get("abbreviations", [])) == set(frame["abbreviations"])
    several = [t for t in under if sum(p in under for p in frames[t]["is_a"]) > 1]
    assert all(len(by_source[t]["broader"]) == sum(p in under for p in frames[t]["is_a"]) for t in several)


# ---- the SKOS vocabulary -------------------------------------------------------------------------
def test_a_two_language_skos_vocabulary_keeps_both_languages_codes_and_both_parents(tmp_path):
    """--language en,de: English names, German labels as synonyms, the German-only concept named
    in German; notations and matches (OBO PURLs as CURIEs) kept; a concept under two blocks keeps
    both broader links and joins the same class whatever the language."""
    truth = skos_concepts()
    summary, concepts = import_summary(tmp_path, VOCABULARY, SCHEME, "cv", "--language", "en,de", "--class-level", "2")
    by_source = {c["source"]: c for c in concepts.values()}
    assert set(by_source) == set(truth) and summary["concepts"] == 19 and summary["classes"] == 5
    def curie(iri: str) -> str:  # OBO PURLs and MeSH IRIs as the CURIEs DOID writes
        return re.sub(r"^http://id\.nlm\.nih\.gov/mesh/", "MESH:",
                      re.sub(r"^http://purl\.obolibrary\.org/obo/([A-Za-z]+)_", r"\1:", iri))

    for iri, concept in truth.items():
        mine = by_source[iri]
        assert mine["notation"] == concept["notation"]
        assert sorted(mine.get("xrefs", [])) == sorted(map(curie, concept["matches"]))
        labels = {text.casefold() for text, _ in concept["labels"]}  # "Angina pectoris"@de is the English name
        assert {s.casefold() for s in [mine["name"], *mine.get("synonyms", [])]} == labels
        english = [text for text, language in concept["labels"] if language == "en"]
        assert mine["name"] in english or not english
        assert {by_source_id(concepts, b) for b in mine.get("broader", [])} == concept["broader"] & set(truth)
    assert by_source["http://example.org/cardio-vocabulary/I70"]["name"] == "Atherosklerose"
    assert by_source["http://example.org/cardio-vocabulary/I11"]["class"] == "hypertensive"
    assert any("sit under two or more classes" in p for p in summary["problems"])
    assert any(p.startswith("1 obsolete term(s)") and "I64" in p for p in summary["problems"])
    german_dir = tmp_path / "de"
    _, german = import_summary(german_dir, VOCABULARY, SCHEME, "cvde", "--language", "de", "--class-level", "2")
    assert {c["source"]: c["class"] for c in german.values()} == {c["source"]: c["class"] for c in concepts.values()}
    assert {c["source"]: c["name"] for c in german.values()}["http://example.org/cardio-vocabulary/I21"] == \
        "akuter Myokardinfarkt"
    english_only = import_summary(tmp_path / "en", VOCABULARY, SCHEME, "cven", "--class-level", "2")[0]
    assert any("none in en nor untagged" in p and "I70" in p for p in english_only["problems"])


def by_source_id(concepts: dict[str, dict], concept_id: str) -> str:
    return concepts[concept_id]["source"]


# ---- in the graph --------------------------------------------------------------------------------
def graph_size(driver) -> tuple[int, int]:
    """Nodes and edges, leaving out the bookkeeping a command leaves (its locks, the inputs' version)."""
    records, _, _ = driver.execute_query(
        "CALL () { MATCH (n) WHERE NOT any(l IN labels(n) WHERE l STARTS WITH '__' OR l = 'InputsVersion') "
        "RETURN count(n) AS nodes } RETURN nodes, COUNT { ()-[]->() } AS edges")
    return records[0]["nodes"], records[0]["edges"]


@pytest.mark.neo4j
def test_published_ontologies_load_are_found_by_code_and_synonym_and_remove_cleanly(migrated_env, tmp_path, driver):
    before = graph_size(driver)
    import_summary(tmp_path, RAD_SLIM, "DOID:4", "rad", "--load", env=migrated_env)
    import_summary(tmp_path, VOCABULARY, SCHEME, "cv", "--language", "en,de", "--class-level", "2", "--load",
                   env=migrated_env)
    records, _, _ = driver.execute_query(
        "MATCH (c:Concept {ontology: $name}) RETURN count(c) AS concepts, "
        "sum(COUNT { (c)-[:BROADER]->() }) AS broader, sum(size(c.xrefs)) AS xrefs", name="rad")
    frames = obo_frames(RAD_SLIM)
    under = below("DOID:4", {t: f["is_a"] for t, f in frames.items()})
    assert records[0]["concepts"] == 80 and records[0]["xrefs"] == 559
    assert records[0]["broader"] == sum(1 for t in under for p in frames[t]["is_a"] if p in under)

    def find(*args: str) -> list[dict]:
        return json.loads(ok(["ontology", "find", *args, "--json"], migrated_env))

    assert [r["id"] for r in find("I21")] == ["cv:I21"]  # the notation
    assert find("Herzinfarkt")[0]["id"] == "cv:I21" and find("DOID:9408")[0]["id"] == "cv:I21"
    assert find("D009203", "--ontology", "cv")[0]["matched"] == "cross-reference MESH:D009203"
    hypertensive_heart = find("hypertensive heart disease", "--ontology", "cv")[0]
    assert hypertensive_heart["broader"] == ["cv:hypertensive hypertensive diseases",
                                             "cv:other-heart other forms of heart disease"]
    rad_term = next(t for t in sorted(under) if frames[t]["xrefs"])
    code = frames[rad_term]["xrefs"][0]
    assert rad_term in {r["source"] for r in find(code, "--ontology", "rad", "--limit", "50")}
    for name in ("rad", "cv"):
        ok(["ontology", "remove", name], migrated_env)
    assert graph_size(driver) == before
    assert invoke(["ontology", "find", "I21", "--json"], migrated_env).output.strip() == "[]"
