"""`tripartite eval` on the sample corpus, its refusals, and what "covered" means."""
import json
import re
import statistics

import yaml

import pytest
from click.testing import CliRunner

from conftest import cli_env
from tripartite.cli import cli
from tripartite.evaluation.measure import coverage
from tripartite.infra import migrations
from tripartite.infra.graph import Graph
from tripartite.infra.paths import migrations_dir, samples_dir

pytestmark = pytest.mark.neo4j


def invoke(args, env):
    return CliRunner().invoke(cli, args, env=env)


def eval_args(out, *extra):
    return ["eval", str(samples_dir() / "guidelines"), "cardiology", str(samples_dir() / "objects"),
            "--out", str(out), "--top-k", "1,3", "--min-score", "0.7", "--sweep-alpha", "0.8,0.9",
            "--sweep-beta", "0.5", "--max-per-concept", "1,2", "--sweep-max-tokens", "none",
            "--sweep-tokens-per-concept", "70", *extra]


def test_covered_means_a_cited_chunk_carries_an_extract_of_the_concept(driver, neo4j_db):
    migrations.migrate(Graph(driver, neo4j_db.database), migrations_dir())
    driver.execute_query("""
        CREATE (o:Object {id: 'o'}), (a:Concept {id: 'a'}), (b:Concept {id: 'b'}), (c:Concept {id: 'c'}),
               (d:Concept {id: 'd'}), (t1:Chunk {id: 't1'}), (t2:Chunk {id: 't2'}), (t3:Chunk {id: 't3'})
        CREATE (o)-[:CONCERNS]->(a), (o)-[:CONCERNS]->(b), (o)-[:CONCERNS]->(c),
               (a)-[:MENTIONED_IN]->(t1), (b)-[:MENTIONED_IN]->(t2), (c)-[:MENTIONED_IN]->(t2),
               (d)-[:MENTIONED_IN]->(t2)""", database_=neo4j_db.database)
    db = neo4j_db.database
    assert coverage(Graph(driver, db), "o", []) == (0, 3)
    assert coverage(Graph(driver, db), "o", ["t1"]) == (1, 3)
    assert coverage(Graph(driver, db), "o", ["t2"]) == (2, 3)  # d is in t2 but not a concept of the object
    assert coverage(Graph(driver, db), "o", ["t3"]) == (0, 3)  # a chunk without extracts covers nothing
    assert coverage(Graph(driver, db), "o", ["t1", "t2", "t3"]) == (3, 3)


def lexicon(ontology_file):
    """concept id -> a whole-word pattern of its name and synonyms, written again from the YAML
    file (the judge must not use the pre-analysis, nor this project's own pattern code)."""
    data = yaml.safe_load(open(ontology_file, encoding="utf-8"))
    patterns = {}
    for cls in data["classes"]:
        for c in cls["concepts"]:
            terms = [c["name"], *c.get("synonyms", [])]
            loose = [re.escape(t) for t in terms if not (len(t) <= 4 and t.isupper())]
            exact = [re.escape(t) for t in terms if len(t) <= 4 and t.isupper()]
            parts = ([r"(?i:\b(?:" + "|".join(loose) + r")\b)"] if loose else []) + (
                [r"\b(?:" + "|".join(exact) + r")\b"] if exact else [])
            patterns[f"{data['name']}:{c['id']}"] = re.compile("|".join(parts))
    return patterns


def test_eval_on_the_sample_corpus(neo4j_db, tmp_path, driver):
    env = cli_env(neo4j_db, tmp_path)
    out = tmp_path / "results"
    result = invoke(eval_args(out, "--json", "--max-tokens", "500"), env)
    assert result.exit_code == 0, result.output
    files = json.loads(result.output)["files"]
    assert open(files["plot"], "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    markdown = open(files["markdown"], encoding="utf-8").read()
    assert "| method | median tokens | all prompt tokens | coverage (lexicon judge) |" in markdown and "lexicon judge takes" in markdown
    assert "![median coverage against median prompt tokens](eval.png)" in markdown
    report = json.load(open(files["json"], encoding="utf-8"))

    rows = {(m["object_id"], m["method"]): m for m in report["objects"]}
    objects = sorted({o for o, _ in rows})
    ours_methods = ["Tripartite", "Tripartite, no budget", "Tripartite, paper selection, no budget",
                    "Tripartite, budget 500 tokens", "Tripartite, no budget, best 1 per concept",
                    "Tripartite, no budget, best 2 per concept"]
    rag_methods = ["RAG top-1", "RAG top-3", "RAG score>=0.7", "RAG same budget"]
    methods = ours_methods + rag_methods + ["Local search", "Global search"]
    assert objects == ["patient-a", "patient-b", "patient-c"]
    assert [s["method"] for s in report["summary"]] == methods
    assert "| Local search |" in markdown and "| Global search |" in markdown and "all prompt tokens" in markdown
    patterns = lexicon(samples_dir().parent / "plugins" / "cardiology" / "ontology.yaml")
    for object_id in objects:
        ours = rows[(object_id, "Tripartite")]
        assert rows[(object_id, "RAG top-1")]["chunks"] == 1 and rows[(object_id, "RAG top-3")]["chunks"] == 3
        assert rows[(object_id, "RAG same budget")]["tokens"] <= ours["tokens"]
        assert rows[(object_id, "Tripartite, budget 500 tokens")]["tokens"] <= 500
        one, two = (rows[(object_id, f"Tripartite, no budget, best {n} per concept")] for n in (1, 2))
        free = rows[(object_id, "Tripartite, no budget")]
        assert one["tokens"] <= two["tokens"] <= free["tokens"] and one["chunks"] <= two["chunks"] <= free["chunks"]
        # The judge's figures, recomputed here from the object's text and the prompt the CLI prints.
        text = driver.execute_query("MATCH (o:Object {id: $o}) RETURN o.text AS t", o=object_id).records[0]["t"]
        concepts = {cid for cid, pattern in patterns.items() if pattern.search(text)}
        prompt = json.loads(invoke(["prompt", object_id, "--format", "json"], env).output)
        cited = "\n".join(e["text"] for c in prompt["concepts"] for e in c["evidence"])
        judged = {cid for cid in concepts if patterns[cid].search(cited)}
        assert (ours["concepts"], ours["judged"], ours["tokens"]) == (len(concepts), len(judged), prompt["tokens"])
        assert ours["density"] == pytest.approx(1000 * len(judged) / prompt["tokens"])
        assert 0 <= ours["reached"] <= ours["reachable"] <= ours["concepts"]
        # The older measure stays as a second column.
        chunk_ids = sorted({e["chunk_id"] for c in prompt["concepts"] for e in c["evidence"]})
        records, _, _ = driver.execute_query(
            "MATCH (:Object {id: $o})-[:CONCERNS]->(c:Concept) "
            "RETURN count(c) AS total, sum(CASE WHEN EXISTS { (c)-[:MENTIONED_IN]->(t:Chunk) WHERE t.id IN $ids } "
            "THEN 1 ELSE 0 END) AS covered", o=object_id, ids=chunk_ids)
        assert (ours["covered"], ours["analysed"]) == (records[0]["covered"], records[0]["total"])
        assert prompt["alpha"] == 0.9 and prompt["beta"] == 0.5  # the sweep put the classification back
        # Local and global search are measured on the prompts `prompt --mode` prints, by the same judge.
        for mode, method in (("local", "Local search"), ("global", "Global search")):
            built = json.loads(invoke(["prompt", object_id, "--mode", mode, "--format", "json"], env).output)
            row = rows[(object_id, method)]
            assert row["tokens"] == built["tokens"] and row["chunks"] == len(built["references"])
            assert row["concepts"] == len(concepts)
            assert mode == "local" or row["spent"] == built["total_tokens"] > built["tokens"]
    for summary in report["summary"]:
        mine = [m for m in report["objects"] if m["method"] == summary["method"]]
        assert summary["median_tokens"] == statistics.median(m["tokens"] for m in mine)
        judged = [m for m in mine if m["concepts"]]  # coverage and density: objects naming a concept
        assert summary["median_density"] == pytest.approx(statistics.median(m["density"] for m in judged))
        assert summary["median_coverage"] == pytest.approx(statistics.median(m["coverage"] for m in judged))
    assert [t["method"] for t in report["targets"]] == ours_methods
    for target in report["targets"]:
        assert target["met"] == (target["tokens_ok"] and target["ratio_ok"] and target["reach_ok"]
                                 and target["coverage_ok"])
        assert target["best_rag_method"] in rag_methods
    # The sweep point of the default budget at the run's own alpha and beta is the run itself.
    point = next(p for p in report["sweep"] if (p["alpha"], p["beta"], p["tokens_per_concept"]) == (0.9, 0.5, 70))
    assert point["median_tokens"] == report["summary"][0]["median_tokens"]
    assert {(p["alpha"], p["beta"]) for p in report["sweep"]} == {(0.8, 0.5), (0.9, 0.5)}


def test_tune_reports_and_stores_the_densest_setting_at_the_coverage_floor(neo4j_db, tmp_path):
    env = cli_env(neo4j_db, tmp_path)
    assert invoke(eval_args(tmp_path / "out", "--sweep-alpha", "none"), env).exit_code == 0
    args = ["tune", "--alpha", "0.8,0.9", "--beta", "0.5", "--max-tokens", "none,400", "--tokens-per-concept", "100",
            "--coverage", "0.5", "--json"]
    # A sweep without --store leaves the classification the last select made, flags and all.
    assert invoke(["select", "--alpha", "0.5", "--beta", "0.2"], env).exit_code == 0
    before = json.loads(invoke(["prompt", "patient-b", "--format", "json"], env).output)
    report = json.loads(invoke(args, env).output)
    after = json.loads(invoke(["prompt", "patient-b", "--format", "json"], env).output)
    assert (after["alpha"], after["beta"], after["prompt"]) == (0.5, 0.2, before["prompt"])
    points, best = report["points"], report["best"]
    assert len(points) == 2 * 3 and not report["stored"]
    able = [p for p in points if (p["median_reach"] if p["median_reach"] is not None else p["median_coverage"]) >= 0.5]
    assert best["median_density"] == max(p["median_density"] for p in able)
    stored = json.loads(invoke(args[:-1] + ["--store", "--json"], env).output)
    assert stored["stored"] and stored["best"] == best
    # What is stored is what select and prompt use next.
    selected = json.loads(invoke(["select", "--json"], env).output)
    assert (selected["alpha"], selected["beta"]) == (best["alpha"], best["beta"])
    prompt = json.loads(invoke(["prompt", "patient-b", "--format", "json"], env).output)
    expected = best["max_tokens"] if best["max_tokens"] is not None else None
    if expected is not None:
        assert prompt["max_tokens"] == expected and prompt["tokens"] <= expected
    assert prompt["alpha"] == best["alpha"]
    assert invoke(["tune", "--coverage", "1.01"], env).exit_code == 2
    # --store when no setting qualifies (a 1-token budget covers nothing): exit 1, say so, keep the stored one.
    starved = invoke(["tune", "--alpha", "0.95", "--beta", "0.3", "--max-tokens", "1", "--tokens-per-concept", "none",
                      "--coverage", "0.5", "--store"], env)
    assert starved.exit_code == 1
    assert starved.output.splitlines()[-1] == ("no setting keeps coverage (of reach) at 50% or more; nothing stored (select and "
                                               "prompt keep their settings); lower --coverage or widen --alpha, "
                                               "--beta and the budgets")
    again = json.loads(invoke(["select", "--json"], env).output)
    assert (again["alpha"], again["beta"]) == (best["alpha"], best["beta"])
    tuned = json.loads(invoke(["config"], env).output)["selection_tuned"]
    assert (tuned["alpha"], tuned["beta"], tuned["max_tokens"]) == (best["alpha"], best["beta"], best["max_tokens"])
    assert (tuned["median_coverage"], tuned["median_reach"]) == (best["median_coverage"], best["median_reach"])
    # --forget: the configured setting applies again, to the stored classification too.
    configured = json.loads(invoke(["config"], env).output)["selection"]
    forgot = invoke(["tune", "--forget"], env)
    assert forgot.exit_code == 0 and forgot.output.startswith("forgot the stored setting")
    assert json.loads(invoke(["config"], env).output)["selection_tuned"] is None
    prompt = json.loads(invoke(["prompt", "patient-b", "--format", "json"], env).output)
    assert (prompt["alpha"], prompt["beta"]) == (configured["alpha"], configured["beta"])
    assert invoke(["tune", "--forget"], env).output.startswith("no stored setting to forget")
    assert invoke(["tune", "--forget", "--store"], env).exit_code == 2


def test_eval_refuses_a_database_holding_other_documents(neo4j_db, tmp_path, driver):
    env = cli_env(neo4j_db, tmp_path)
    driver.execute_query("CREATE (:Document {id: 'someone-elses', title: 'Other'})", database_=neo4j_db.database)
    refused = invoke(eval_args(tmp_path / "out"), env)
    assert refused.exit_code == 1
    assert "the database also holds documents someone-elses" in refused.output and "--reset" in refused.output
    records, _, _ = driver.execute_query("MATCH (n) WHERE n:Chunk OR n:Object RETURN count(n) AS n")
    assert records[0]["n"] == 0  # refused before writing anything
    assert not (tmp_path / "out").exists()

    reset = invoke(eval_args(tmp_path / "out", "--reset", "--search", "none"), env)  # what --reset does, not search
    assert reset.exit_code == 0, reset.output
    assert "Tripartite" in reset.output and "met" in reset.output
    records, _, _ = driver.execute_query("MATCH (d:Document) RETURN collect(d.id) AS ids")
    assert sorted(records[0]["ids"]) == ["atrial-fibrillation", "heart-failure", "hypertension"]


def test_eval_with_a_missing_input_fails_before_writing(neo4j_db, tmp_path, driver):
    env = cli_env(neo4j_db, tmp_path)
    result = invoke(["eval", str(tmp_path / "no-such-folder"), "cardiology", str(samples_dir() / "objects"),
                     "--out", str(tmp_path / "out")], env)
    assert result.exit_code == 1
    assert result.output.strip().count("\n") == 0 and "no such document file or folder" in result.output
    records, _, _ = driver.execute_query("MATCH (n) WHERE n:Document OR n:Object RETURN count(n) AS n")
    assert records[0]["n"] == 0


def test_eval_with_an_openai_compatible_endpoint(neo4j_db, tmp_path):
    # A configured endpoint does the extraction and the chunk embeddings; --offline ignores it.
    from fake_openai import FakeOpenAI

    with FakeOpenAI() as server:
        env = cli_env(neo4j_db, tmp_path, OPENAI_BASE_URL=server.base_url, TRIPARTITE_LLM_MODEL="fake-chat",
                      TRIPARTITE_EMBEDDING_PROVIDER="openai", TRIPARTITE_EMBEDDING_MODEL="fake-embed")
        result = invoke(eval_args(tmp_path / "out", "--json"), env)
        assert result.exit_code == 0, result.output
        report = json.load(open(json.loads(result.output)["files"]["json"], encoding="utf-8"))
        assert (report["provider"], report["model"], report["embedder"]) == ("openai", "fake-chat", "fake-embed")
        asked = [r["body"]["messages"][-1]["content"] for r in server.chat_requests()]
        judged = [p for p in asked if '"informed"' in p]
        searched = [p for p in asked if p.startswith(("Extract the entities", "Write a report", "These descriptions",
                                                      "List the keywords", "Answer the question from the community"))]
        assert len(asked) - len(judged) - len(searched) == report["analysis"]["calls"] > 0
        # Local and global search ran through the endpoint too: keywords and map calls per object.
        assert sum(p.startswith("List the keywords") for p in asked) == 3
        assert any(p.startswith("Answer the question from the community") for p in asked)
        ours = [m for m in report["objects"] if m["method"] == "Tripartite"]
        assert len(ours) == 3 and all(0 <= m["covered"] <= m["analysed"] for m in ours)
        # The LLM judge asked about the prompts; its answers are cached like every call.
        assert judged and all(m["llm_judged"] is not None and m["llm_judged"] <= m["concepts"] for m in ours)
        assert "coverage (LLM judge)" in open(json.loads(result.output)["files"]["markdown"], encoding="utf-8").read()

        calls = len(server.chat_requests())
        offline = invoke(eval_args(tmp_path / "offline", "--json", "--offline", "--reset"), env)
        assert offline.exit_code == 0, offline.output
        report = json.load(open(json.loads(offline.output)["files"]["json"], encoding="utf-8"))
        assert report["provider"] == "extractive" and len(server.chat_requests()) == calls


def test_eval_checks_its_inputs_before_reset_empties_anything(neo4j_db, tmp_path, driver):
    env = cli_env(neo4j_db, tmp_path)
    driver.execute_query("CREATE (:Document {id: 'keep-me', title: 'Other'})", database_=neo4j_db.database)
    objects = tmp_path / "objects"
    (objects / "a").mkdir(parents=True)
    (objects / "b").mkdir()
    (objects / "a" / "case.md").write_text("# Case\n\nChest pain.\n")
    (objects / "b" / "case.md").write_text("# Case\n\nShortness of breath.\n")
    result = invoke(["eval", str(samples_dir() / "guidelines"), "cardiology", str(objects), "--reset",
                     "--out", str(tmp_path / "out")], env)
    assert result.exit_code == 1 and "two object files give the id case" in result.output
    records, _, _ = driver.execute_query("MATCH (d:Document) RETURN collect(d.id) AS ids")
    assert records[0]["ids"] == ["keep-me"]  # --reset did not run
    for bad in (["--top-k", "0"], ["--sweep-alpha", "-0.1"], ["--max-per-concept", "0"]):
        refused = invoke(eval_args(tmp_path / "out", *bad), env)
        assert refused.exit_code == 2 and "out of range" in refused.output


def test_eval_scores_an_object_that_concerns_no_concept_instead_of_stopping(neo4j_db, tmp_path):
    """Found on unseen fault reports: one object naming none of the ontology's concepts stopped
    the whole eval. Tripartite has no evidence for it, and is scored for that."""
    objects = tmp_path / "objects"
    objects.mkdir()
    (objects / "patient-a.md").write_text((samples_dir() / "objects" / "patient-a.md").read_text(encoding="utf-8"))
    (objects / "off-topic.md").write_text("# Off topic\n\nThe weather was sunny and warm all week.\n")
    args = ["eval", str(samples_dir() / "guidelines"), "cardiology", str(objects), "--out", str(tmp_path / "out"),
            "--top-k", "1", "--min-score", "none", "--sweep-alpha", "none", "--max-per-concept", "none",
            "--search", "none", "--json"]
    result = invoke(args, cli_env(neo4j_db, tmp_path))
    assert result.exit_code == 0, result.output
    report = json.load(open(json.loads(result.output)["files"]["json"], encoding="utf-8"))
    rows = {(m["object_id"], m["method"]): m for m in report["objects"]}
    off = rows[("off-topic", "Tripartite")]
    assert off["chunks"] == 0 and off["judged"] == 0 and off["concepts"] == 0 and off["tokens"] > 0
    ours = rows[("patient-a", "Tripartite")]
    assert ours["chunks"] > 0
    # An object naming no concept counts in the tokens' median, not in coverage's.
    summary = next(s for s in report["summary"] if s["method"] == "Tripartite")
    assert summary["median_coverage"] == pytest.approx(ours["coverage"])
    assert summary["median_tokens"] == pytest.approx((ours["tokens"] + off["tokens"]) / 2)
