"""Importing published ontologies (OBO, OWL, SKOS, CSV), removing one, drafting one from the
documents: the readers and the branch without a database, loading and removing in a real Neo4j."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from conftest import invoke, ok
from tripartite.ontology.branch import take_branch
from tripartite.ontology.plugins import resolve
from tripartite.ontology.reader import OntologyError, parse_ontology
from tripartite.ontology.sources import read_terms

FIXTURES = Path(__file__).parent / "fixtures" / "ontologies"
PUBLISHED = FIXTURES / "published" / "doid-rad-slim.obo"


def imported(tmp_path: Path, file: str, root: str, *extra: str, name: str = "machines") -> tuple[dict, dict]:
    """The JSON summary of an import and the ontology.yaml it wrote, which must also load."""
    summary = as_json_text(["ontology", "import", str(FIXTURES / file), "--root", root, "--name", name,
                            "--out", str(tmp_path), *extra])
    folder = Path(summary["folder"])
    parsed, plugin = resolve(str(folder))  # what `ontology load` would read: it must validate
    assert plugin.name == name and parsed.name == name
    return summary, yaml.safe_load((folder / "ontology.yaml").read_text(encoding="utf-8"))


def as_json_text(args: list[str], env: dict | None = None) -> dict:
    """A command's --json output; without env there is no database (an import needs none)."""
    return json.loads(ok([*args, "--json"], env or {}))


def concepts_of(data: dict) -> dict[str, dict]:
    return {c["name"]: {**c, "class": k["name"]} for k in data["classes"] for c in k["concepts"]}


# ---- the four formats ----------------------------------------------------------------------------
def test_obo_branch_keeps_synonyms_apart_and_reports_each_problem_once(tmp_path):
    summary, data = imported(tmp_path, "machines.obo", "MF:0000001")
    concepts = concepts_of(data)
    overload = concepts["motor overload"]
    assert overload["class"] == "drive fault" and overload["synonyms"] == ["overcurrent", "Überstrom"]
    assert overload["related"] == ["thermal trip"] and overload["source"] == "MF:0000011"
    assert concepts["stall"]["broader"] == ["MF_0000011"] and concepts["stall"]["related"] == ["locked rotor"]
    assert concepts["電源故障"]["synonyms"] == ["power supply failure"]  # non-ASCII names survive
    assert "obsolete bearing fault" not in concepts and summary["obsolete_skipped"] == 1
    assert concepts["spare parts"]["class"] == "machine fault"  # a leaf at class level: the root's class
    problems = summary["problems"]
    assert len(problems) == 5  # the reader's two (an obsolete term, a shared label), then the branch's three
    assert problems[0].startswith("1 obsolete term(s) (e.g. MF:0000030 (obsolete bearing fault))")
    assert problems[1].startswith("1 label(s) naming two or more terms") and "MF:0000024" in problems[1]
    assert sum("cycle" in p for p in problems) == 1 and sum("MF:0000999" in p for p in problems) == 1
    assert sum("duplicate name" in p for p in problems) == 1
    assert {"encoder error", "Encoder Error (MF:0000024)"} <= set(concepts)  # the later id gets its id
    # The whole branch is concepts: the root's children too, each in the class it names.
    assert concepts["drive fault"]["class"] == "drive fault" and concepts["sensor fault"]["class"] == "sensor fault"
    assert concepts["motor overload"]["broader"] == ["MF_0000010"]  # its link to the class term is kept


def test_owl_reads_labels_in_the_language_asked_and_ignores_restrictions(tmp_path):
    summary, data = imported(tmp_path, "machines.owl", "http://example.org/machines#MachineFault")
    concepts = concepts_of(data)
    assert data["classes"][0]["name"] == "drive fault"
    assert concepts["motor overload"]["synonyms"] == ["Überstrom"]
    assert concepts["motor overload"]["related"] == ["thermal trip"]
    assert concepts["motor overload"]["description"] == "The motor draws more current than rated."
    assert concepts["phase loss"]["broader"] == ["MotorOverload"] and "old fault" not in concepts
    assert len(summary["problems"]) == 3 and any("NotDefinedHere" in p for p in summary["problems"])
    assert summary["problems"][0].startswith("1 obsolete term(s) (e.g. http://example.org/machines#OldFault")
    german = as_json_text(["ontology", "import", str(FIXTURES / "machines.owl"), "--root", "MachineFault",
                           "--name", "de", "--language", "de", "--out", str(tmp_path)])
    assert "Antriebsfehler" in Path(german["folder"], "ontology.yaml").read_text(encoding="utf-8")


def test_import_takes_several_languages_and_strict_refuses_malformed_lines(tmp_path):
    """--language en,de names concepts in English and keeps the German labels as synonyms;
    a malformed OBO line is skipped and reported, or with --strict refuses the file in one line."""
    _, data = imported(tmp_path, "machines.owl", "http://example.org/machines#MachineFault", "--language", "en,de",
                       name="both")
    assert "Antriebsfehler" in concepts_of(data)["drive fault"]["synonyms"]
    broken = tmp_path / "broken.obo"
    text = (FIXTURES / "machines.obo").read_text(encoding="utf-8")
    broken.write_text(text.replace("is_a: MF:0000010", "is_a MF:0000010", 1), encoding="utf-8")
    summary = as_json_text(["ontology", "import", str(broken), "--root", "MF:0000001", "--name", "lenient",
                            "--out", str(tmp_path)])
    assert any(p.startswith("1 malformed OBO line(s) skipped") for p in summary["problems"])
    refused = invoke(["ontology", "import", str(broken), "--root", "MF:0000001", "--name", "strict",
                      "--out", str(tmp_path), "--strict"], {})
    assert refused.exit_code == 1 and "not a valid OBO file" in refused.output
    assert len(refused.output.strip().splitlines()) == 1 and not (tmp_path / "strict").exists()


def test_skos_uses_broader_and_narrower_and_pref_alt_hidden_labels(tmp_path):
    summary, data = imported(tmp_path, "machines.ttl", "http://example.org/thesaurus/faults")
    concepts = concepts_of(data)
    assert concepts["emergency stop"]["class"] == "safety faults"  # reached by skos:narrower only
    assert concepts["bus timeout"]["synonyms"] == ["watchdog timeout"]  # the German altLabel is left out
    assert concepts["bus timeout"]["related"] == ["time out"]
    assert "retired alarm" not in concepts and summary["obsolete_skipped"] == 1
    assert len(summary["problems"]) == 3 and "(retired alarm)" in summary["problems"][0]


def test_a_skos_concept_scheme_can_be_the_root(tmp_path):
    summary, data = imported(tmp_path, "machines.ttl", "http://example.org/thesaurus/scheme", name="scheme")
    assert [k["name"] for k in data["classes"]] == ["machine faults"]  # the top concept, as a class
    assert {"bus timeout", "emergency stop", "fieldbus faults"} <= set(concepts_of(data))


def test_csv_cells_may_hold_newlines_and_the_header_a_trailing_comma(tmp_path):
    table = tmp_path / "terms.csv"
    table.write_text('id,name,parent,description,\nR,root,,,\nK,kind,R,,\n'
                     'T,thing,K,"line one\nline two",\n', encoding="utf-8")
    terms = read_terms(table)
    assert terms["T"].definition == "line one line two" and terms["T"].parents == ["K"]


def test_csv_with_several_parents_obsolete_rows_and_a_cycle(tmp_path):
    summary, data = imported(tmp_path, "machines.csv", "F0")
    concepts = concepts_of(data)
    assert concepts["air leak"]["synonyms"] == ["pressure drop", "hissing"]
    assert concepts["air leak"]["related"] == ["compressed air"]
    assert concepts["valve stuck"]["synonyms"] == ["Ventil klemmt"] and "old leak code" not in concepts
    assert any("F9" in p for p in summary["problems"]) and any("cycle" in p for p in summary["problems"])


def test_several_parents_keep_every_broader_link_and_join_the_nearest_class(tmp_path):
    table = tmp_path / "parents.csv"
    table.write_text("id,name,parent,synonyms\nR,root,,\nA,kind a,R,sort a\nB,kind b,R,\nL,lonely kind,R,\n"
                     "E,empty kind,R,\na1,alpha,A,\nb1,beta,B,\nd,delta,a1|L,\nx,chi,a1|B,\n", encoding="utf-8")
    terms = read_terms(table)
    branch = take_branch(terms, "R", "parents.csv")
    concepts = {c["name"]: {**c, "class": k["id"]} for k in branch.classes for c in k["concepts"]}
    # every term under the root is a concept, the classes' own terms included, each in its class
    assert {"kind a", "kind b", "lonely kind", "alpha", "beta", "delta", "chi"} <= set(concepts)
    assert concepts["kind a"]["class"] == "A" and concepts["alpha"]["class"] == "A"
    # several parents: every broader link stays; the class is the nearest class term (fewest is_a
    # steps: chi is_a B directly, alpha's class A is two steps up), whatever the names say
    assert concepts["chi"]["broader"] == ["a1", "B"] and concepts["chi"]["class"] == "B"
    assert concepts["delta"]["broader"] == ["a1", "L"] and concepts["delta"]["class"] == "L"
    # a class term with nothing below it is a concept of the root's class
    assert concepts["empty kind"]["class"] == "R"
    assert branch.problems == ["2 concept(s) sit under two or more classes (e.g. d (delta), x (chi)): each joins "
                               "the nearest (fewest is_a steps; ties: the smaller id), and keeps every broader link"]
    # the rule does not depend on names: renaming every term leaves each concept in its class
    renamed = table.read_text(encoding="utf-8").replace("kind b", "zz kind").replace("kind a", "aa kind")
    table.write_text(renamed, encoding="utf-8")
    again = take_branch(read_terms(table), "R", "parents.csv")
    assert {c["id"]: k["id"] for k in again.classes for c in k["concepts"]} == \
        {c["id"]: c["class"] for c in concepts.values()}
    # a class has no synonyms in the format: its description keeps them for the reader
    assert next(k for k in branch.classes if k["id"] == "A")["description"] == "Also called: sort a."


def test_a_term_under_the_root_only_through_obsolete_ones_is_reported(tmp_path):
    table = tmp_path / "obsolete.csv"
    table.write_text("id,name,parent,obsolete\nR,root,,\nK,kind,R,\nT,thing,K,\nO,old thing,K,true\n"
                     "U,under old,O,\n", encoding="utf-8")
    branch = take_branch(read_terms(table), "R", "obsolete.csv")
    assert [c["name"] for k in branch.classes for c in k["concepts"]] == ["kind", "thing"]
    assert branch.problems == ["1 obsolete term(s) (e.g. O (old thing)): not taken into any branch",
                               "U (under old) is under the root only through obsolete O (old thing); it is left out "
                               "(give it a live parent to keep it)"]


def test_a_class_level_below_the_branch_is_refused(tmp_path):
    result = invoke(["ontology", "import", str(FIXTURES / "machines.obo"), "--root", "MF:0000001", "--name", "m",
                     "--out", str(tmp_path / "out"), "--class-level", "6"], {})
    assert result.exit_code == 1 and "--class-level 6 leaves no concepts" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and not (tmp_path / "out").exists()
    folder = invoke(["ontology", "import", str(FIXTURES), "--root", "X", "--name", "m"], {})
    assert folder.exit_code == 1 and "is a folder" in folder.stderr


def test_a_published_ontology_file_imports(tmp_path):
    summary, data = imported(tmp_path, "published/doid-rad-slim.obo", "DOID:0050161", name="respiratory")
    assert summary["concepts"] >= 2 and summary["terms_read"] == 81
    for concept in concepts_of(data).values():
        assert concept["source"].startswith("DOID:")


def test_depth_and_class_level_choose_the_slice(tmp_path):
    terms = read_terms(FIXTURES / "machines.obo")
    shallow = take_branch(terms, "MF:0000001", "machines.obo", depth=2)
    assert "stall" not in {c["name"] for k in shallow.classes for c in k["concepts"]}
    lower = take_branch(terms, "MF:0000001", "machines.obo", class_level=2)
    # level-2 terms with children are classes; the childless ones gather in the root's class
    assert {k["name"] for k in lower.classes} == {"motor overload", "signal loss", "machine fault"}


def test_an_acronym_the_text_defines_becomes_a_synonym(tmp_path):
    from tripartite.infra.config import load_settings
    from tripartite.infra.embeddings import make_embedder
    from tripartite.drafting.offline import offline_classes

    texts = ["A programmable logic controller (PLC) runs the machine program.",
             "When the PLC stops, the programmable logic controller shows a fault on the panel.",
             "Check the PLC cabinet for a tripped servo drive.",
             "The servo drive reports overcurrent to the PLC."]
    chunks = [{"id": f"c{i}", "text": t, "document": f"doc{i % 2}", "section": "Faults"} for i, t in enumerate(texts)]
    embed = make_embedder(load_settings(env={"TRIPARTITE_CONFIG": ""}, cwd=tmp_path)).embed
    concepts = concepts_of({"classes": offline_classes(chunks, embed, 5)})
    controller = concepts["programmable logic controller"]
    assert controller["synonyms"] == ["PLC"] and "doc0 > Faults" in controller["seen"]


def test_drafts_load_with_seeds_that_lose_parents_and_with_chinese_names(tmp_path):
    """A seed concept the documents never name drops out, and its children's broader links with
    it; names without ASCII letters still get distinct ids."""
    from tripartite.infra.config import load_settings
    from tripartite.infra.embeddings import make_embedder
    from tripartite.drafting.offline import offline_classes, seeded_classes
    from tripartite.ontology.plugin_folder import ontology_file, write_plugin_folder

    embed = make_embedder(load_settings(env={"TRIPARTITE_CONFIG": ""}, cwd=tmp_path)).embed
    branch = take_branch(read_terms(FIXTURES / "machines.obo"), "MF:0000001", "machines.obo")
    chunks = [{"id": f"c{i}", "text": text, "document": "manual", "section": "Faults"} for i, text in enumerate(
        ["The axis went into a stall twice.", "A stall stops the axis; check the load.", "Signal loss on the encoder."])]
    seeded, unseen = seeded_classes(chunks, embed, branch.classes, 3)
    assert unseen > 0 and "motor overload" not in concepts_of({"classes": seeded})
    chinese = [{"id": f"z{i}", "text": text, "document": "手册", "section": "故障"} for i, text in enumerate(
        ["电机过载时驱动器报警。", "编码器信号丢失导致电机停止。", "驱动器过热，电机过载。", "检查编码器电缆和驱动器。"])]
    drafted = offline_classes(chinese, embed, 6, max_classes=2)
    for name, classes in (("seeded", seeded), ("chinese", drafted)):
        folder = write_plugin_folder(tmp_path, name, {"plugin.yaml": f"name: {name}\n",
                                                      "ontology.yaml": ontology_file("", name, "", classes)})
        parsed = parse_ontology(folder / "ontology.yaml")  # loads: broader points at kept concepts, ids unique
        assert parsed.concepts


# ---- bad input: one line, nothing written ------------------------------------------------------
@pytest.mark.parametrize("file, root, message", [
    ("missing.obo", "X:1", "file not found"),
    ("latin1.obo", "X:1", "not UTF-8"),
    ("broken.owl", "X", "not valid RDF"),
    ("empty.owl", "X", "the file is empty"),
    ("empty.obo", "X", "the file is empty"),
    ("machines.obo", "MF:424242", "no term 'MF:424242'"),
    ("machines.obo", "MF:0000040", "has no descendants"),
    ("machines.obo", "MF:0000030", "is obsolete"),
])
def test_bad_input_is_one_line_and_writes_nothing(tmp_path, file, root, message):
    source = tmp_path / "in"
    source.mkdir()
    (source / "latin1.obo").write_bytes(b"format-version: 1.2\n\n[Term]\nid: X:1\nname: caf\xe9\n")
    (source / "broken.owl").write_text("<rdf:RDF this is not xml")
    (source / "empty.owl").write_text("")
    (source / "empty.obo").write_text("\n  \n")
    path = FIXTURES / file if (FIXTURES / file).exists() else source / file
    out = tmp_path / "out"
    result = invoke(["ontology", "import", str(path), "--root", root, "--name", "x", "--out", str(out)], {})
    assert result.exit_code == 1 and message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and not out.exists()


def test_an_existing_folder_is_kept_unless_forced(tmp_path):
    args = ["ontology", "import", str(FIXTURES / "machines.csv"), "--root", "F0", "--name", "m", "--out", str(tmp_path)]
    ok(args, {})
    curated = tmp_path / "m" / "ontology.yaml"
    curated.write_text(curated.read_text(encoding="utf-8") + "# my curation\n", encoding="utf-8")
    refused = invoke(args, {})
    assert refused.exit_code == 1 and "--force" in refused.stderr and "# my curation" in curated.read_text()
    ok([*args, "--force"], {})
    assert "# my curation" not in curated.read_text() and not list(tmp_path.glob(".m.*"))


def test_imported_concepts_parse_with_exact_and_related_synonyms_apart(tmp_path):
    summary, _ = imported(tmp_path, "machines.obo", "MF:0000001")
    parsed = parse_ontology(Path(summary["folder"]) / "ontology.yaml")
    overload = next(c for c in parsed.concepts if c.name == "motor overload")
    assert overload.synonyms == ("overcurrent", "Überstrom") and overload.related == ("thermal trip",)
    with pytest.raises(OntologyError):
        take_branch(read_terms(FIXTURES / "machines.obo"), "MF:0000001", "x", depth=0)
    shallow = take_branch(read_terms(FIXTURES / "machines.obo"), "MF:0000001", "x", depth=1)
    assert {c["name"] for k in shallow.classes for c in k["concepts"]} == {"drive fault", "sensor fault", "spare parts"}


# ---- in Neo4j: load, remove, draft --------------------------------------------------------------
@pytest.mark.neo4j
def test_import_load_then_remove_twice(migrated_env, tmp_path, driver):
    result = ok(["ontology", "import", str(FIXTURES / "machines.obo"), "--root", "MF:0000001", "--name", "machines",
                 "--out", str(tmp_path), "--load"], migrated_env)
    assert "loaded machines" in result
    records, _, _ = driver.execute_query(
        "MATCH (c:Concept {id: 'machines:MF_0000011'}) RETURN c.synonyms AS s, c.related AS r, c.source AS src")
    assert records[0].data() == {"s": ["overcurrent", "Überstrom"], "r": ["thermal trip"], "src": "MF:0000011"}
    removed = ok(["ontology", "remove", "machines"], migrated_env)
    assert removed.startswith("removed machines: 3 classes, 10 concepts")
    again = invoke(["ontology", "remove", "machines"], migrated_env)
    assert again.exit_code == 1 and "not loaded" in again.stderr
    records, _, _ = driver.execute_query("MATCH (n) WHERE n:Concept OR n:ConceptClass OR n:Ontology RETURN count(n) AS n")
    assert records[0]["n"] == 0


@pytest.mark.neo4j
def test_import_load_under_a_loaded_name_is_refused_before_writing(migrated_env, tmp_path):
    ok(["ontology", "load", "cardiology"], migrated_env)
    args = ["ontology", "import", str(FIXTURES / "machines.obo"), "--root", "MF:0000001", "--name", "cardiology",
            "--out", str(tmp_path / "out"), "--load"]
    refused = invoke(args, migrated_env)
    assert refused.exit_code == 1 and "already loaded from" in refused.stderr and "--force" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1 and not (tmp_path / "out").exists()
    assert "loaded cardiology" in ok([*args, "--force"], migrated_env).splitlines()


@pytest.mark.neo4j
def test_removing_an_analysed_ontology_takes_what_was_derived_and_a_reload_rebuilds_it(loaded, driver):
    ok(["analyze"], loaded)
    ok(["select"], loaded)
    before = ok(["prompt", "patient-a"], loaded)
    removed = as_json_text(["ontology", "remove", "cardiology"], loaded)
    assert removed["concepts"] == 27 and removed["chunk_extracts"] > 0 and removed["evidence"] > 0
    records, _, _ = driver.execute_query("""
        RETURN COUNT { ()-[:MENTIONED_IN]->() } + COUNT { ()-[:CONCERNS]->() } AS edges,
               COUNT { (:Evidence) } + COUNT { (:ScoreDistribution) } + COUNT { (:ScoreBin) } AS selection,
               COUNT { MATCH (t:Chunk) WHERE any(id IN t.analysed_concepts WHERE id STARTS WITH 'cardiology:') } AS lists""")
    assert records[0].data() == {"edges": 0, "selection": 0, "lists": 0}
    stale = invoke(["prompt", "patient-a"], loaded)
    assert stale.exit_code == 1
    doctor = invoke(["doctor"], loaded)  # says what the prompt refuses for, as a warning: the setup itself is sound
    assert doctor.exit_code == 0 and "[warn] selection: documents, ontologies or chunk extracts changed since the " \
        "last full `tripartite select`" in doctor.output
    # The selection is current again, but of no concept: select and prompt name the cause.
    assert "note: no ontology is loaded: `tripartite ontology load PLUGIN`" in ok(["select"], loaded)
    unloaded = invoke(["prompt", "patient-a"], loaded)
    assert unloaded.exit_code == 1 and "no ontology is loaded, so object 'patient-a' has no concepts" in unloaded.output
    ok(["ontology", "load", "cardiology"], loaded)
    ok(["analyze"], loaded)
    ok(["select"], loaded)
    assert ok(["prompt", "patient-a"], loaded) == before
    assert "[ok  ] selection: store version 2" in invoke(["doctor"], loaded).output
