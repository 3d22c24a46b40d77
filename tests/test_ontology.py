"""Plugin ontologies and objects: validation without a database, loading into a real Neo4j."""
import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from tripartite.cli import cli
from tripartite.infra.paths import samples_dir
from tripartite.ontology.plugins import available_plugins, resolve
from tripartite.ontology.reader import OntologyError, parse_ontology

SHARED_ONTOLOGY = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "ontology.yaml"


def write(tmp_path, text: str) -> Path:
    path = tmp_path / "onto.yaml"
    path.write_text(text)
    return path


# ---- validation ---------------------------------------------------------------------------------
def test_shipped_plugins_are_valid():
    plugins = {p.name: p for p in available_plugins()}
    assert {"cardiology", "industrial-automation"} <= set(plugins)
    cardiology, _ = resolve("cardiology")
    assert [c.key for c in cardiology.classes] == ["disease", "symptom", "medication", "risk_factor"]
    assert len(cardiology.concepts) == 27
    assert all(c.synonyms and c.description for c in cardiology.concepts)
    assert plugins["cardiology"].object_kinds == ("anamnesis",)
    assert set(plugins["cardiology"].prompts) == {"chunk", "object"}
    industrial, _ = resolve("industrial-automation")
    assert len(industrial.concepts) >= 12 and plugins["industrial-automation"].object_kinds == ("fault-report",)


@pytest.mark.skipif(not SHARED_ONTOLOGY.is_file(), reason="needs ../shared/corpus")
def test_shared_benchmark_ontology_reads_as_written():
    ontology = parse_ontology(SHARED_ONTOLOGY)
    assert ontology.name == "cardiometabolic" and len(ontology.classes) == 4 and len(ontology.concepts) == 27
    by_key = {c.key: c for c in ontology.concepts}
    # Unquoted commas inside flow mappings are part of the text, as the author wrote it.
    assert by_key["dizziness"].description == "Feeling faint, lightheaded or unsteady, or losing consciousness."
    assert by_key["chest_pain"].description == "Pain or discomfort in the chest, possibly of cardiac origin."
    assert "HTN" in by_key["hypertension"].synonyms


def test_concepts_may_be_listed_at_the_top_with_their_class(tmp_path):
    ontology = parse_ontology(write(tmp_path, """
name: mini
classes: [{id: k, name: K}]
concepts:
  - {id: a, name: A, class: k, broader: [b]}
  - {id: b, name: B, class: k}
"""))
    assert [(c.key, c.class_key, c.broader) for c in ontology.concepts] == [("a", "k", ("b",)), ("b", "k", ())]


@pytest.mark.parametrize("text, message", [
    ("name: x\nclasses: [{id: k, concepts: [{id: a, name: A}, {id: a, name: B}]}]", "duplicate concept id 'a'"),
    ("name: x\nclasses: [{id: k, concepts: [{id: a, name: A}]}, {id: k}]", "duplicate class id 'k'"),
    ("name: x\nclasses: [{id: k}]\nconcepts: [{id: a, name: A}]", "concept 'a' has no class"),
    ("name: x\nclasses: [{id: k}]\nconcepts: [{id: a, name: A, class: z}]", "names class 'z', which is not defined"),
    ("name: x\nclasses: [{id: k, concepts: [{id: a, name: A, broader: [q]}]}]", "has broader 'q', which is not"),
    ("name: x\nclasses: [{id: k, concepts: [{id: a}]}]", "concept 'a' name is missing"),
    ("name: x\nclasses: [{id: k, concepts: [{id: a, name: A, synonym: [b]}]}]", "unknown key(s) synonym"),
    ("name: x\nclasses:\n  - id: k\n   concepts: [", "not valid YAML (line"),
    ("classes: [{id: k}]", "name is missing"),
    ("name: x\nclasses: []", "classes must be a non-empty list"),
    ("- just\n- a list", "must be a YAML mapping"),
    # each entry is declared (OntologyFile, ClassEntry, ConceptEntry): its keys and their types
    ("name: x\nlabel: y\nclasses: [{id: k}]",
     "the ontology has unknown key(s) label; allowed: classes, concepts, description, name, version"),
    ("name: x\nclasses: [{id: k, title: K, colour: red}]",
     "classes[1] has unknown key(s) colour, title; allowed: concepts, description, id, name, source"),
    ("name: x\nclasses: [{id: k, name: [K]}]", "classes[1].name must be text, not list"),
    ("name: x\nclasses: [{id: 'a b'}]", "classes[1].id 'a b' is not a valid id"),
    ("name: x\nclasses: [{id: k, concepts: [{name: A}]}]", "class 'k' concept 1 id is missing; add it"),
    ("name: x\nclasses: [{id: k, concepts: [{id: a, name: A, synonyms: b}]}]",
     "concept 'a' synonyms must be a list of strings"),
    ("name: x\nclasses: [{id: k, concepts: [{id: a, name: true}]}]", "concept 'a' name must be text, not bool"),
    ("name: x\nclasses: [{id: k, concepts: {id: a}}]", "classes[1].concepts must be a list"),
])
def test_malformed_ontologies_are_one_line_errors(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(OntologyError) as info:
        parse_ontology(path)
    assert message in str(info.value)
    assert str(info.value).startswith(str(path)) and "\n" not in str(info.value)


def test_unknown_plugin_name_lists_the_plugins():
    with pytest.raises(OntologyError, match="plugins here: .*cardiology"):
        resolve("no-such-plugin")


# ---- loading into Neo4j ---------------------------------------------------------------------------
def invoke(args, env):
    return CliRunner().invoke(cli, args, env=env)


@pytest.fixture
def env(migrated_env):
    return migrated_env


def one(driver, query, **params):
    records, _, _ = driver.execute_query(query, params)
    return records[0].data()


@pytest.mark.neo4j
def test_two_ontologies_side_by_side(driver, env):
    assert invoke(["ontology", "load", "cardiology"], env).output.startswith("loaded cardiology: 4 classes, 27 concepts")
    assert invoke(["ontology", "load", "industrial-automation"], env).exit_code == 0
    graph = one(driver, """
        MATCH (c:Concept)-[:IN_CLASS]->(k:ConceptClass)-[:IN_ONTOLOGY]->(o:Ontology)
        RETURN count(DISTINCT o) AS ontologies, count(c) AS concepts,
               collect(DISTINCT c.ontology) AS names,
               COUNT { (:Concept {id: 'cardiology:myocardial_infarction'})-[:BROADER]->
                       (:Concept {id: 'cardiology:coronary_artery_disease'}) } AS broader""")
    assert graph["ontologies"] == 2 and graph["broader"] == 1
    assert graph["concepts"] == 27 + len(resolve("industrial-automation")[0].concepts)
    again = invoke(["ontology", "load", "cardiology"], env)
    assert again.output.startswith("unchanged cardiology")
    listed = json.loads(invoke(["ontology", "list", "--json"], env).output)
    assert [(o["id"], o["concepts"]) for o in listed][0] == ("cardiology", 27)


@pytest.mark.neo4j
@pytest.mark.skipif(not SHARED_ONTOLOGY.is_file(), reason="needs ../shared/corpus")
def test_shared_ontology_loads(driver, env):
    result = invoke(["ontology", "load", str(SHARED_ONTOLOGY)], env)
    assert result.exit_code == 0 and "cardiometabolic: 4 classes, 27 concepts" in result.output
    assert one(driver, "MATCH (c:Concept {id: 'cardiometabolic:dizziness'}) RETURN c.description AS d")["d"] == \
        "Feeling faint, lightheaded or unsteady, or losing consciousness."


@pytest.mark.neo4j
def test_malformed_ontology_writes_nothing(driver, env, tmp_path):
    path = write(tmp_path, "name: broken\nclasses: [{id: k, concepts: [{id: a, name: A}, {id: a, name: B}]}]")
    result = invoke(["ontology", "load", str(path)], env)
    assert result.exit_code == 1 and result.output.startswith(f"error: {path}: duplicate concept id 'a'")
    assert one(driver, "MATCH (n) WHERE n:Ontology OR n:Concept OR n:ConceptClass RETURN count(n) AS n")["n"] == 0


@pytest.mark.neo4j
def test_reloading_an_edited_ontology_removes_dropped_concepts_and_their_edges(driver, env, tmp_path):
    path = write(tmp_path, "name: mini\nclasses: [{id: k, concepts: [{id: a, name: A}, {id: b, name: B}]}]")
    assert invoke(["ontology", "load", str(path)], env).exit_code == 0
    driver.execute_query("""MATCH (b:Concept {id: 'mini:b'})
        CREATE (:Object {id: 'o1'})-[:CONCERNS {summary: 'x'}]->(b)
        CREATE (:Evidence {concept_id: 'mini:b', object_id: 'o1', chunk_ids: ['c'], w: [0.1], reasons: ['alpha']})""")
    path.write_text("name: mini\nclasses: [{id: k, concepts: [{id: a, name: A renamed}]}]")
    assert invoke(["ontology", "load", str(path)], env).output.startswith("loaded mini")
    state = one(driver, """RETURN COUNT { (:Concept {ontology: 'mini'}) } AS concepts,
        COLLECT { MATCH (c:Concept {id: 'mini:a'}) RETURN c.name }[0] AS name, COUNT { ()-[:CONCERNS]->() } AS concerns,
        COUNT { (:Evidence) } AS evidence""")
    assert state == {"concepts": 1, "name": "A renamed", "concerns": 0, "evidence": 0}


@pytest.mark.neo4j
def test_rewording_a_concept_reads_its_chunks_again_and_leaves_the_others(driver, env, tmp_path):
    doc = tmp_path / "care.md"
    doc.write_text("# Care\n\nA persistent cough needs review within a week.\n\n"
                   "Wheezing at night calls for an inhaler.\n\nSmokers are offered help to quit.\n")
    path = write(tmp_path, "name: mini\nclasses: [{id: k, concepts: [{id: breath, name: Breathing trouble, "
                           "synonyms: [cough]}, {id: smoke, name: Smoking, synonyms: [smokers]}]}]")
    for args in (["ingest", str(doc)], ["ontology", "load", str(path)], ["analyze"]):
        assert invoke(args, env).exit_code == 0
    extract = "MATCH (:Concept {id: $id})-[m:MENTIONED_IN]->() RETURN collect(m.summary) AS s"
    assert any("cough" in s for s in one(driver, extract, id="mini:breath")["s"])
    smoke_before = one(driver, "MATCH (:Concept {id: 'mini:smoke'})-[m:MENTIONED_IN]->() "
                               "RETURN collect(m.analysed_at) AS at")["at"]
    path.write_text(path.read_text().replace("[cough]", "[wheezing]"))
    loaded = invoke(["ontology", "load", str(path)], env)
    assert loaded.exit_code == 0
    assert "1 concepts reworded (mini:breath): `tripartite analyze` reads every chunk and object" in loaded.output
    pending = one(driver, "MATCH (t:Chunk) RETURN collect(DISTINCT t.analysed_concepts) AS lists")["lists"]
    assert pending == [["mini:smoke"]]  # only the reworded concept waits; its old extract stays until then
    assert invoke(["analyze"], env).exit_code == 0
    summaries = one(driver, extract, id="mini:breath")["s"]
    assert summaries and all("Wheezing" in s and "cough" not in s for s in summaries)
    assert one(driver, "MATCH (:Concept {id: 'mini:smoke'})-[m:MENTIONED_IN]->() "
                       "RETURN collect(m.analysed_at) AS at")["at"] == smoke_before  # not read again
    again = invoke(["ontology", "load", str(path), "--force"], env)
    assert again.exit_code == 0 and "reworded" not in again.output and "new" not in again.output
    # A concept renamed by id is one removed (with its extracts) and one new (read by the next analyze).
    path.write_text(path.read_text().replace("id: smoke", "id: tobacco"))
    renamed = invoke(["ontology", "load", str(path)], env)
    assert renamed.exit_code == 0
    assert "1 concepts new (mini:tobacco): no chunk or object was read for them yet, so no prompt has them: " \
           "`tripartite analyze`, then `tripartite select`" in renamed.output
    assert "1 concepts removed (mini:smoke), with their 1 extracts: `tripartite select` updates" in renamed.output


@pytest.mark.neo4j
def test_objects_add_is_idempotent_and_a_change_drops_derived_edges(driver, env, tmp_path):
    folder = tmp_path / "objects"
    shutil.copytree(samples_dir() / "objects", folder)
    # An editor's swap file is not an object: it is named as skipped, not read.
    (folder / ".patient-a.md.swp").write_text("half-saved text")
    first = json.loads(invoke(["objects", "add", str(folder), "--kind", "anamnesis", "--json"], env).output)
    assert sorted(first["added"]) == ["patient-a", "patient-b", "patient-c"]
    assert first["hidden"] == [str((folder / ".patient-a.md.swp").resolve())]
    again = json.loads(invoke(["objects", "add", str(folder), "--kind", "anamnesis", "--json"], env).output)
    assert again == {"added": [], "changed": [], "unchanged": ["patient-a", "patient-b", "patient-c"], "moved": [],
                     "renamed": [], "skipped": [], "hidden": [str((folder / ".patient-a.md.swp").resolve())],
                     "irregular": []}
    # The same text from another path is that object, moved: it keeps its analysis and selection.
    driver.execute_query("MATCH (o:Object {id: 'patient-b'}) SET o.selection_stale = false, o.analysed_concepts = ['t:y']")
    copy = tmp_path / "elsewhere" / "patient-b.md"
    copy.parent.mkdir()
    copy.write_bytes((folder / "patient-b.md").read_bytes())
    moved = invoke(["objects", "add", str(copy), "--kind", "anamnesis"], env)
    assert moved.exit_code == 0 and f"moved     patient-b (the same text, now read from {copy.resolve()}" in moved.output
    assert one(driver, "MATCH (o:Object {id: 'patient-b'}) RETURN o.path AS path, o.selection_stale AS stale, "
                       "o.analysed_concepts AS analysed") == {"path": str(copy.resolve()), "stale": False,
                                                             "analysed": ["t:y"]}
    driver.execute_query("""MATCH (o:Object {id: 'patient-a'}) SET o.analysed_concepts = ['t:x']
        CREATE (o)-[:CONCERNS {summary: 'old'}]->(:Concept {id: 't:x'})
        CREATE (:Evidence {object_id: 'patient-a', concept_id: 't:x', chunk_ids: ['c'], w: [0.1], reasons: ['alpha']})""")
    (folder / "patient-a.md").write_text((folder / "patient-a.md").read_text() + "\nPLAN: follow-up in a week.\n")
    changed = json.loads(invoke(["objects", "add", str(folder / "patient-a.md"), "--kind", "anamnesis", "--json"],
                                env).output)
    assert changed["changed"] == ["patient-a"]
    state = """MATCH (o:Object {id: 'patient-a'})
        RETURN o.text CONTAINS 'follow-up' AS updated, COUNT { (o)-[:CONCERNS]->() } AS concerns,
               o.analysed_concepts IS NULL AS reanalyse, COUNT { (:Evidence {object_id: 'patient-a'}) } AS evidence,
               o.kind AS kind"""
    # Its extracts go and `analyze` will read it again; its Evidence goes with the next select.
    assert one(driver, state) == {"updated": True, "concerns": 0, "reanalyse": True, "evidence": 1, "kind": "anamnesis"}
    assert invoke(["select", "--object", "patient-a"], env).exit_code == 0
    assert one(driver, state)["evidence"] == 0
    bad = tmp_path / "bad.md"
    bad.write_bytes(b"\xff\xfe broken")
    result = invoke(["objects", "add", str(bad), str(folder), "--kind", "anamnesis"], env)
    assert result.exit_code == 1 and "bad.md: not UTF-8" in result.output


@pytest.mark.neo4j
def test_a_plugin_folder_anywhere_brings_its_prompts_and_question(driver, env, tmp_path):
    """A plugin copied out of plugins/ (or written by `ontology import` or `draft`): its prompts
    are stored with the ontology at load, so the analysis sends them even once the folder is
    gone; its ontology.yaml loaded by path is the same plugin (question and prompts kept)."""
    from fake_openai import FakeOpenAI

    folder = tmp_path / "cardx"
    shutil.copytree(samples_dir().parent / "plugins" / "cardiology", folder)
    for name in ("plugin.yaml", "ontology.yaml"):
        (folder / name).write_text((folder / name).read_text().replace("name: cardiology", "name: cardx"))
    chunk_prompt = folder / "prompts" / "chunk.md"
    chunk_prompt.write_text("Our own reading rules, MARKER-7731.\n" + chunk_prompt.read_text())
    doc = tmp_path / "bp.md"
    doc.write_text("# Blood pressure\n\nHypertension is treated with lisinopril.\n")
    assert invoke(["ingest", str(doc)], env).exit_code == 0
    assert invoke(["ontology", "load", str(folder)], env).exit_code == 0
    same = invoke(["ontology", "load", str(folder / "ontology.yaml")], env)
    assert same.exit_code == 0 and same.output.startswith("unchanged cardx")
    question = "MATCH (o:Ontology {id: 'cardx'}) RETURN o.question AS q"
    assert driver.execute_query(question).records[0]["q"].startswith("Given the patient's history")
    shutil.rmtree(folder)
    with FakeOpenAI() as server:
        analysed = invoke(["analyze", "--ontology", "cardx"], {**env, "OPENAI_BASE_URL": server.base_url,
                                                                "TRIPARTITE_LLM_MODEL": "fake-chat"})
        assert analysed.exit_code == 0, analysed.output
        sent = [json.dumps(r["body"]) for r in server.chat_requests()]
        assert sent and all("MARKER-7731" in body for body in sent)


@pytest.mark.parametrize("prompts, says", [
    ("prompts: {chunks: prompts/chunk.md}", "prompt stage 'chunks' is unknown; use chunk or object"),
    ("prompts: {chunk: prompts/empty.md}", "the chunk prompt has no {concepts}"),
    ("prompt: {chunk: prompts/chunk.md}",  # plugin.yaml is declared (PluginManifest): a misspelt key is refused
     "plugin.yaml: unknown key(s) prompt; allowed: description, name, object_kinds, ontology, prompts, question"),
    ("prompts: [prompts/chunk.md]", "plugin.yaml: prompts must be a mapping, e.g. prompts: {chunk: prompts/chunk.md}"),
    ("object_kinds: anamnesis", "plugin.yaml: object_kinds must be a list of ids"),
    ("object_kinds: [case report]", "plugin.yaml: object_kinds 'case report' is not a valid id"),
])
def test_a_plugin_prompt_that_could_not_work_is_refused(tmp_path, prompts, says):
    folder = tmp_path / "p"
    (folder / "prompts").mkdir(parents=True)
    (folder / "prompts" / "chunk.md").write_text("{concepts}\n{text}\n")
    (folder / "prompts" / "empty.md").write_text("Read it.\n")
    (folder / "ontology.yaml").write_text("name: p\nclasses: [{id: k, concepts: [{id: a, name: A}]}]\n")
    (folder / "plugin.yaml").write_text(f"name: p\nontology: ontology.yaml\n{prompts}\n")
    with pytest.raises(OntologyError, match=re.escape(says)):
        resolve(str(folder))
