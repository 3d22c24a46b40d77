"""The pre-analysis: the LLM call path against a real HTTP server, the offline extractive
provider, and `tripartite analyze` against a real Neo4j (incremental, dry run, resumable)."""
import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from conftest import kill_when
from fake_openai import FakeOpenAI
from tripartite.analysis.extractive import ExtractiveProvider, synonym_pattern
from tripartite.analysis.schema import ExtractionTask, parse_extracts
from tripartite.cli import cli
from tripartite.infra.config import load_settings
from tripartite.infra.embeddings import MiniLMEmbedder
from tripartite.infra.llm.cache import AnswerCache
from tripartite.infra.llm.providers import OpenAIChatProvider
from tripartite.ontology.concept import ConceptInfo
from tripartite.infra.llm.runner import LLMRunner
from tripartite.infra.llm.tasks import InvalidAnswer

HYPERTENSION = ConceptInfo("t:hypertension", "Hypertension", ("high blood pressure", "HTN"),
                           "Blood pressure that stays above the normal range.")
SMOKING = ConceptInfo("t:smoking", "Smoking", ("cigarettes", "tobacco"), "Use of tobacco.")
TEXT = "Hypertension is common in older adults. Smoking and cigarettes harm the heart. The weather was fine."


def task(text=TEXT, concepts=(HYPERTENSION, SMOKING), item="c1"):
    lines = "\n".join(f"- {c.id}: {c.name}. {c.description}" for c in concepts)
    prompt = f'Concepts:\n{lines}\n\nPassage:\n"""\n{text}\n"""\nAnswer with JSON only.'
    return ExtractionTask("chunk", item, prompt, text, tuple(concepts))


@pytest.fixture(scope="module")
def embedder():
    return MiniLMEmbedder(load_settings(env={}).cache_dir)


# ---- the answer schema ---------------------------------------------------------------------------
def test_answers_are_validated():
    ids = ["a", "b"]
    parsed = parse_extracts('```json\n{"extracts": [{"concept_id": "a", "extract": " x "}]}\n```', ids)
    assert parsed.value == {"a": "x", "b": ""} and parsed.dropped == 0
    for bad, message in [("nope", "not JSON"), ('{"x": 1}', "extracts"),
                         ('{"extracts": [{"concept_id": "z", "extract": ""}]}', "unknown concept_id"),
                         ('{"extracts": [{"concept_id": "a", "extract": 5}]}', "must be a string")]:
        with pytest.raises(InvalidAnswer, match=message):
            parse_extracts(bad, ids)


# ---- the one LLM path, over real HTTP -------------------------------------------------------------
def runner_for(server, tmp_path, timeout=10.0):
    provider = OpenAIChatProvider("fake-chat", server.base_url, "sk-test", timeout=timeout)
    return LLMRunner(provider, AnswerCache(tmp_path / "cache.sqlite"), concurrency=2, backoff_seconds=0.01)


def test_success_then_cache_makes_zero_calls(tmp_path):
    with FakeOpenAI() as server:
        runner = runner_for(server, tmp_path)
        [outcome] = list(runner.run([task()]))
        assert outcome.result == {"t:hypertension": "Hypertension is common in older adults.", "t:smoking": "Smoking and cigarettes harm the heart."}
        again = runner_for(server, tmp_path)
        [cached] = list(again.run([task()]))
        assert cached.cached and cached.result == outcome.result
        assert len(server.chat_requests()) == 1
        assert again.accounting.as_dict()["chunk"]["calls"] == 0
        stats = runner.accounting.as_dict()["chunk"]
        assert stats["calls"] == 1 and stats["prompt_tokens"] > 0 and stats["completion_tokens"] > 0


@pytest.mark.parametrize("script, retries", [(["429"], 1), (["500", "429"], 2)])
def test_rate_limits_and_server_errors_are_retried(tmp_path, script, retries):
    with FakeOpenAI() as server:
        server.script = list(script)
        runner = runner_for(server, tmp_path)
        [outcome] = list(runner.run([task()]))
        assert outcome.error is None and outcome.result["t:smoking"]
        stats = runner.accounting.as_dict()["chunk"]
        assert stats["retries"] == retries and stats["calls"] == retries + 1 == len(server.chat_requests())


def test_timeout_is_retried(tmp_path):
    with FakeOpenAI(timeout_sleep=2.0) as server:
        server.script = ["timeout"]
        runner = runner_for(server, tmp_path, timeout=0.5)
        [outcome] = list(runner.run([task()]))
        assert outcome.error is None and runner.accounting.as_dict()["chunk"]["retries"] == 1


def test_malformed_json_gets_one_repair(tmp_path):
    with FakeOpenAI() as server:
        server.script = ["malformed"]
        runner = runner_for(server, tmp_path)
        [outcome] = list(runner.run([task()]))
        assert outcome.error is None and runner.accounting.as_dict()["chunk"]["repairs"] == 1
        repair = server.chat_requests()[1]["body"]["messages"]
        assert repair[1]["role"] == "assistant" and "not valid" in repair[2]["content"]


def test_malformed_twice_is_a_failure_and_not_cached(tmp_path):
    with FakeOpenAI() as server:
        server.script = ["malformed", "malformed"]
        runner = runner_for(server, tmp_path)
        [outcome] = list(runner.run([task()]))
        assert outcome.result is None and "InvalidAnswer" in outcome.error and "c1" in outcome.error
        [retry] = list(runner_for(server, tmp_path).run([task()]))  # the next run asks again
        assert retry.error is None and not retry.cached


# ---- the offline extractive provider ---------------------------------------------------------------
def test_extractive_provider_keeps_the_sentences_about_each_concept(embedder):
    extracts, usage = ExtractiveProvider(embedder).answer(task())
    assert extracts["t:hypertension"] == "Hypertension is common in older adults."
    assert extracts["t:smoking"] == "Smoking and cigarettes harm the heart."
    assert usage.prompt_tokens == 0
    # Meaning, not only words: a sentence close to the description without any synonym.
    near = ExtractiveProvider(embedder, similarity=0.4, document_similarity=0.4).answer(task(
        text="Her arterial pressure readings stay elevated at every visit. She likes gardening."))[0]
    assert "arterial pressure" in near["t:hypertension"] and "gardening" not in near["t:hypertension"]


def test_a_documents_sentence_needs_more_closeness_than_an_objects(embedder):
    # The same unnamed sentence, as close to the concept as it is: kept from an object's note at
    # the object's threshold, left out of a document's chunk when below the document's.
    text = "Her arterial pressure readings stay elevated at every visit."
    provider = ExtractiveProvider(embedder)
    closeness = float(embedder.embed([text])[0] @ embedder.embed([HYPERTENSION.gloss])[0])
    provider.similarity, provider.document_similarity = closeness - 0.01, closeness + 0.01
    as_chunk, _ = provider.answer(task(text=text))
    as_object, _ = provider.answer(ExtractionTask("object", "o1", "", text, (HYPERTENSION, SMOKING)))
    assert as_chunk["t:hypertension"] == "" and as_object["t:hypertension"] == text
    assert ExtractiveProvider(embedder).document_similarity > ExtractiveProvider(embedder).similarity


def test_a_fragment_is_kept_only_when_it_names_the_concept(embedder):
    # A note's heading ("Cardiovascular") is close to a heart concept's description but says
    # nothing about it: closeness needs three words; naming does not ("HTN." is kept).
    provider = ExtractiveProvider(embedder, similarity=-1.0, document_similarity=-1.0)  # any closeness
    text = "Cardiovascular\n\nHTN.\n\nShe walks her dog daily."
    extracts, _ = provider.answer(ExtractionTask("object", "o1", "", text, (HYPERTENSION,)))
    assert "Cardiovascular" not in extracts["t:hypertension"] and "HTN." in extracts["t:hypertension"]
    assert "She walks her dog daily." in extracts["t:hypertension"]  # three words or more: closeness counts


def test_a_list_item_is_kept_with_the_sentence_that_introduces_the_list(embedder):
    diabetes = ConceptInfo("t:diabetes", "Diabetes mellitus", ("diabetes",), "High blood sugar.")
    provider = ExtractiveProvider(embedder, similarity=2.0, document_similarity=2.0)  # naming only
    text = ("Conditions that overwork the heart cause heart failure. Causes of heart failure include:\n\n"
            "Coronary heart disease\n\nDiabetes\n\nHigh blood pressure")
    assert provider.answer(task(text=text, concepts=(diabetes,)))[0]["t:diabetes"] == \
        "Causes of heart failure include: Diabetes"
    # items by list markers, or short ones with a full stop; a full sentence after the list ends it
    text = ("Consider activities such as:\n\n- Meditation\n- A stress management program.\n\nSmoking raises "
            "the risk of many heart diseases, and quitting helps.\n\nSmoking")
    answer = provider.answer(task(text=text, concepts=(SMOKING,)))[0]["t:smoking"]
    assert answer == "Smoking raises the risk of many heart diseases, and quitting helps. Smoking"
    answer = provider.answer(task(text=text, concepts=(ConceptInfo("t:s", "Stress", ("stress management",),
                                                                   "Strain."),)))[0]["t:s"]
    assert answer == "Consider activities such as: - A stress management program."


def test_a_term_is_named_in_its_inflections_but_the_judge_keeps_it_as_written(embedder):
    dizzy = ConceptInfo("t:dizzy", "Dizziness and fainting", ("dizzy", "blood thinner", "family history"), "Faint.")
    provider = ExtractiveProvider(embedder, similarity=2.0, document_similarity=2.0)  # naming only
    for text in ("She felt dizziness on standing.", "Blood thinners lower the risk.", "Family histories matter."):
        assert provider.answer(task(text=text, concepts=(dizzy,)))[0]["t:dizzy"] == text
    assert provider.answer(task(text="A dizzying view.", concepts=(dizzy,)))[0]["t:dizzy"] == ""  # whole words
    assert not synonym_pattern(dizzy).search("She felt dizziness.")  # the lexicon judge's pattern


def test_short_all_caps_synonyms_match_case(embedder):
    af = ConceptInfo("t:af", "Atrial fibrillation", ("AF",), "Irregular rhythm.")
    extracts, _ = ExtractiveProvider(embedder, similarity=0.99).answer(task(
        text="ECG confirms AF. We went to a caf after.", concepts=(af,)))
    assert extracts["t:af"] == "ECG confirms AF."


# ---- analyze against Neo4j -------------------------------------------------------------------------
def invoke(args, env):
    return CliRunner().invoke(cli, args, env=env)


def one(driver, query, **params):
    records, _, _ = driver.execute_query(query, params)
    return records[0].data()


@pytest.mark.neo4j
def test_dry_run_counts_and_writes_nothing(driver, loaded):
    result = invoke(["analyze", "--dry-run", "--json"], loaded)
    figures = json.loads(result.output)
    assert figures["chunk"]["calls"] > 0 and figures["object"]["calls"] == 3
    assert figures["chunk"]["prompt_tokens"] > figures["chunk"]["calls"] * 100
    assert figures["pairs"]["naive_calls"] == 27 * one(driver, "MATCH (c:Chunk) RETURN count(c) AS n")["n"]
    assert figures["pairs"]["after_prefilter"] < figures["pairs"]["naive_calls"]
    assert one(driver, "MATCH ()-[r:MENTIONED_IN|CONCERNS]->() RETURN count(r) AS n")["n"] == 0
    assert one(driver, "MATCH (c:Chunk) WHERE c.analysed_concepts IS NOT NULL RETURN count(c) AS n")["n"] == 0


@pytest.mark.neo4j
def test_offline_analyze_writes_extracts_with_provenance_and_is_incremental(driver, loaded, tmp_path):
    result = invoke(["analyze", "--json"], loaded)
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["provider"] == "extractive" and report["failures"] == 0
    edges = one(driver, """
        MATCH ()-[m:MENTIONED_IN]->() WITH count(m) AS mentioned, collect(DISTINCT m.model) AS models,
             min(size(m.embedding)) AS dims, collect(DISTINCT m.prompt_version) AS versions
        MATCH (o:Object {id: 'patient-b'})-[r:CONCERNS]->(c:Concept)
        RETURN mentioned, models, dims, versions, collect(c.key) AS b_concepts""")
    assert edges["mentioned"] > 10 and edges["models"] == ["extractive-v3"] and edges["dims"] == 384 + 512  # the default: MiniLM's block, bge-small-zh's
    assert edges["versions"][0].startswith("extracts-v1/")
    assert {"atrial_fibrillation", "palpitations", "anticoagulants", "alcohol"} <= set(edges["b_concepts"])
    assert one(driver, "MATCH (r:AnalysisRun) RETURN count(r) AS n, max(r.calls) AS calls")["calls"] > 0
    # Nothing is pending: a second run does no work at all.
    again = json.loads(invoke(["analyze", "--json"], loaded).output)
    assert again["calls"] == 0 and again["stages"] == {}
    # A new concept: only its pairs are analysed, the old extracts stay as they were.
    stamp = one(driver, "MATCH ()-[m:MENTIONED_IN]->() RETURN max(m.analysed_at) AS t")["t"]
    extra = tmp_path / "extra.yaml"
    extra.write_text("name: extra\nclasses: [{id: k, concepts: [{id: wine, name: Wine, synonyms: [wine, glasses], "
                     "description: Drinking wine.}]}]\n")
    assert invoke(["ontology", "load", str(extra)], loaded).exit_code == 0
    added = json.loads(invoke(["analyze", "--json"], loaded).output)
    assert added["stages"]["object"]["tasks"] == 3
    assert one(driver, "MATCH ()-[m:MENTIONED_IN]->(:Chunk) WHERE m.analysed_at > $t "
                       "RETURN collect(DISTINCT startNode(m).id) AS ids", t=stamp)["ids"] in ([], ["extra:wine"])
    wine = one(driver, "MATCH (:Object {id: 'patient-b'})-[r:CONCERNS]->(:Concept {id: 'extra:wine'}) RETURN r.summary AS s")
    assert "wine" in wine["s"]


@pytest.mark.neo4j
def test_openai_compatible_analyze_and_cache(driver, loaded, neo4j_db, tmp_path):
    with FakeOpenAI() as server:
        env = {**loaded, "OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "sk-test",
               "TRIPARTITE_LLM_MODEL": "fake-chat", "TRIPARTITE_LLM_BACKOFF": "0.01"}
        server.script = ["429", "malformed"]
        result = invoke(["analyze", "--json", "--concurrency", "2"], env)
        assert result.exit_code == 0, result.output
        report = json.loads(result.output)
        assert report["provider"] == "openai" and report["model"] == "fake-chat"
        assert report["stages"]["chunk"]["retries"] + report["stages"]["object"]["retries"] == 1
        assert report["stages"]["chunk"]["repairs"] + report["stages"]["object"]["repairs"] == 1
        calls = len(server.chat_requests())
        assert calls == report["calls"]
        edge = one(driver, "MATCH ()-[m:MENTIONED_IN]->() RETURN m.provider AS p, m.model AS m LIMIT 1")
        assert edge == {"p": "openai", "m": "fake-chat"}
        stored = one(driver, "MATCH (r:AnalysisRun) RETURN r.prompt_tokens AS p, r.completion_tokens AS c")
        assert stored["p"] > 0 and stored["c"] > 0
        # Forget the results in the graph: the next run answers everything from the cache.
        driver.execute_query("MATCH ()-[r:MENTIONED_IN|CONCERNS]->() DELETE r")
        driver.execute_query("MATCH (n) WHERE n:Chunk OR n:Object REMOVE n.analysed_concepts")
        again = json.loads(invoke(["analyze", "--json"], env).output)
        assert len(server.chat_requests()) == calls and again["calls"] == 0 and again["cache_hits"] > 0


@pytest.mark.neo4j
def test_killed_run_resumes_without_duplicates_or_repaid_calls(driver, loaded, tmp_path):
    with FakeOpenAI(delay=0.15) as server:
        env = {**os.environ, **loaded, "OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "sk-test",
               "TRIPARTITE_LLM_MODEL": "fake-chat"}
        env.pop("TRIPARTITE_CONFIG")
        command = [sys.executable, "-m", "tripartite.cli", "analyze", "--concurrency", "1", "--json"]
        kill_when(command, env, lambda: len(server.chat_requests()) >= 8)
        first = len(server.chat_requests())
        written = one(driver, "MATCH (c:Chunk) WHERE c.analysed_concepts IS NOT NULL RETURN count(c) AS n")["n"]
        assert 0 < first and written < one(driver, "MATCH (c:Chunk) RETURN count(c) AS n")["n"]  # halfway
        finished = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
        assert finished.returncode == 0, finished.stderr
        prompts = [r["body"]["messages"][0]["content"] for r in server.chat_requests()]
    # Only the request in flight at the kill can be asked twice; every answered one came from the cache.
    assert len(prompts) - len(set(prompts)) <= 1
    duplicates = one(driver, """MATCH (c:Concept)-[m:MENTIONED_IN]->(t:Chunk)
        WITH c, t, count(m) AS n WHERE n > 1 RETURN count(*) AS n""")
    assert duplicates["n"] == 0
    pending = json.loads(invoke(["analyze", "--dry-run", "--json"], loaded).output)
    assert pending["pairs"]["naive_calls"] == 0 and pending["object"]["calls"] == 0


@pytest.mark.neo4j
def test_unreachable_llm_endpoint_is_one_line(driver, loaded):
    from conftest import free_port

    env = {**loaded, "OPENAI_BASE_URL": f"http://127.0.0.1:{free_port()}/v1", "TRIPARTITE_LLM_MODEL": "any"}
    result = invoke(["analyze"], env)
    assert result.exit_code == 1
    assert result.output.strip().splitlines()[-1].startswith("error: LLM endpoint http://127.0.0.1:")
    assert "is not reachable" in result.output
    assert one(driver, "MATCH ()-[r:MENTIONED_IN|CONCERNS]->() RETURN count(r) AS n")["n"] == 0
