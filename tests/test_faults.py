"""Fault injection: bad input, a failing LLM endpoint, concurrent migrations, an interrupted
selection (a server that dies mid-ingest: test_server.py). Each case asserts the one line a user sees, the
exit code, and the graph's counts before and after: nothing lost without a word."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import cli_env
from fake_openai import FakeOpenAI
from tripartite.cli import cli
from tripartite.infra.paths import samples_dir

pytestmark = pytest.mark.neo4j


def invoke(args, env):
    return CliRunner().invoke(cli, args, env=env)


def one_error_line(result) -> str:
    """The output of a failed command: exactly one line, an error."""
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    return lines[0]


def one_row(driver, query: str) -> dict:
    records, _, _ = driver.execute_query(query)
    return dict(records[0])


def selection_snapshot(driver) -> set:
    records, _, _ = driver.execute_query("MATCH (e:Evidence) RETURN e.object_id AS o, e.concept_id AS c, "
                                         "e.chunk_ids AS t, e.w AS w, e.reasons AS reasons")
    return {tuple(tuple(v) if isinstance(v, list) else v for v in r.values()) for r in records}


def counts(driver) -> dict:
    records, _, _ = driver.execute_query("""
        RETURN COUNT { (:Document) } AS documents, COUNT { (:Section) } AS sections, COUNT { (:Chunk) } AS chunks,
               COUNT { (:Object) } AS objects, COUNT { (:Concept) } AS concepts,
               COUNT { ()-[:MENTIONED_IN]->() } AS mentioned_in, COUNT { ()-[:CONCERNS]->() } AS concerns,
               COUNT { (:Evidence) } AS evidence""")
    return dict(records[0])


@pytest.fixture
def env(neo4j_db, tmp_path):
    env = cli_env(neo4j_db, tmp_path)
    assert invoke(["migrate"], env).exit_code == 0
    return env


@pytest.fixture
def sample(env):
    for args in (["ingest", str(samples_dir() / "guidelines")], ["ontology", "load", "cardiology"],
                 ["objects", "add", str(samples_dir() / "objects"), "--kind", "anamnesis"], ["analyze"], ["select"]):
        result = invoke(args, env)
        assert result.exit_code == 0, (args, result.output)
    return env


# ---- ids: nothing replaced without a word -----------------------------------------------------
def test_non_latin_and_same_named_sources_keep_their_own_documents(env, driver, tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir(), second.mkdir()
    (first / "日本.md").write_text("# 日本\n\nTokyo is the capital.\n", encoding="utf-8")
    (first / "中国.md").write_text("# 中国\n\nBeijing is the capital.\n", encoding="utf-8")
    (second / "日本.md").write_text("# 日本\n\nAnother text about Japan.\n", encoding="utf-8")
    assert invoke(["ingest", str(first / "日本.md"), "--no-embed"], env).exit_code == 0
    assert invoke(["ingest", str(first / "中国.md"), "--no-embed"], env).exit_code == 0
    ids = lambda: sorted(r["id"] for r in driver.execute_query("MATCH (d:Document) RETURN d.id AS id").records)  # noqa: E731
    assert ids() == ["中国", "日本"]
    # A same-named file from another folder, in a later run: stored beside it, and said so.
    result = invoke(["ingest", str(second / "日本.md"), "--no-embed"], env)
    assert result.exit_code == 0 and "belongs to" in result.output and "--replace" in result.output
    assert len(ids()) == 3 and "日本" in ids()
    texts = {r["t"] for r in driver.execute_query("MATCH (c:Chunk) RETURN c.text AS t").records}
    assert {"Tokyo is the capital.", "Another text about Japan."} <= texts
    # Ingesting the first source again finds its own document, whatever ran in between.
    again = json.loads(invoke(["ingest", str(first / "日本.md"), "--no-embed", "--json"], env).output)
    assert [d["id"] for d in again["unchanged"]] == ["日本"]
    # --replace hands the id of another source over to a new one, explicitly.
    third = tmp_path / "c"
    third.mkdir()
    (third / "日本.md").write_text("# 日本\n\nA third text, replacing the first.\n", encoding="utf-8")
    replaced = json.loads(invoke(["ingest", str(third / "日本.md"), "--no-embed", "--replace", "--json"], env).output)
    assert [(d["id"], d["replaced"]) for d in replaced["ingested"]] == [("日本", True)]
    texts = {r["t"] for r in driver.execute_query("MATCH (c:Chunk) RETURN c.text AS t").records}
    assert "Tokyo is the capital." not in texts and "A third text, replacing the first." in texts and len(ids()) == 3
    # --replace for the file already stored beside it (the note's advice, one run late) cannot
    # rename it: it says what to remove first, and changes nothing.
    stored = next(i for i in ids() if i.startswith("日本-"))
    before = counts(driver)
    line = one_error_line(invoke(["ingest", str(second / "日本.md"), "--no-embed", "--replace"], env))
    assert f"is stored as {stored} (another file held 日本 when it came)" in line
    assert f"`tripartite documents remove {stored}`, then ingest it again with --replace" in line
    assert counts(driver) == before


def test_objects_from_another_source_are_not_replaced(env, driver, tmp_path):
    (tmp_path / "x").mkdir(), (tmp_path / "y").mkdir()
    (tmp_path / "x" / "case.md").write_text("Chest pain at rest.\n")
    (tmp_path / "y" / "case.md").write_text("Shortness of breath on stairs.\n")
    assert invoke(["objects", "add", str(tmp_path / "x" / "case.md"), "--kind", "anamnesis"], env).exit_code == 0
    result = invoke(["objects", "add", str(tmp_path / "y" / "case.md"), "--kind", "anamnesis"], env)
    assert result.exit_code == 0 and "belongs to" in result.output
    texts = sorted(r["t"] for r in driver.execute_query("MATCH (o:Object) RETURN o.text AS t").records)
    assert texts == ["Chest pain at rest.", "Shortness of breath on stairs."]
    stored = json.loads(invoke(["objects", "list", "--json"], env).output)
    assert invoke(["objects", "list", "--kind", "nosuch"], env).output.startswith("no objects of kind 'nosuch'")
    suffixed = next(o["id"] for o in stored if o["id"] != "case")
    line = one_error_line(invoke(["objects", "add", str(tmp_path / "y" / "case.md"), "--kind", "anamnesis",
                                  "--replace"], env))
    assert f"is stored as object {suffixed}" in line and f"`tripartite objects remove {suffixed}`" in line


def test_demo_never_touches_a_database_with_other_content(env, driver, tmp_path):
    other = tmp_path / "hypertension.md"  # the user's own document, named like a sample one
    other.write_text("# Hypertension\n\nMy own notes on blood pressure.\n")
    assert invoke(["ingest", str(other), "--no-embed"], env).exit_code == 0
    before = counts(driver)
    line = one_error_line(invoke(["demo"], env))
    assert "the demo must not touch" in line and "hypertension" in line
    assert counts(driver) == before


# ---- the selection's state ----------------------------------------------------------------
def test_prompts_refuse_and_search_notes_what_the_graph_moved_past(sample, driver, tmp_path):
    assert invoke(["prompt", "patient-b"], sample).exit_code == 0
    # A changed object: its own incremental select puts it right.
    note = samples_dir() / "objects" / "patient-b.md"
    changed = tmp_path / "objects"
    changed.mkdir()
    (changed / "patient-b.md").write_text(note.read_text() + "\nShe also smokes.\n")
    assert invoke(["objects", "add", str(changed / "patient-b.md"), "--kind", "anamnesis", "--replace"],
                  sample).exit_code == 0
    line = one_error_line(invoke(["prompt", "patient-b"], sample))
    assert "is new or changed and not analysed yet; run `tripartite analyze`, then `tripartite select --object " \
           "patient-b`" in line  # the fix in the order it works
    assert invoke(["analyze"], sample).exit_code == 0
    assert invoke(["select", "--object", "patient-b"], sample).exit_code == 0
    assert invoke(["prompt", "patient-b"], sample).exit_code == 0
    # New thresholds for one object are every object's (P_c is per concept): said, not hidden.
    moved = invoke(["select", "--object", "patient-b", "--alpha", "0.5", "--beta", "0.2"], sample)
    assert moved.exit_code == 0 and "every object is classified by alpha > 0.5 and beta > 0.2 now" in moved.output
    assert json.loads(invoke(["prompt", "patient-a", "--format", "json"], sample).stdout)["alpha"] == 0.5
    assert invoke(["select", "--object", "patient-b"], sample).exit_code == 0  # back to the configured ones
    # A new document changes every object's candidates: a full select is needed.
    doc = tmp_path / "extra.md"
    doc.write_text("# Extra\n\nBlood thinners such as warfarin lower the stroke risk in atrial fibrillation.\n")
    assert invoke(["ingest", str(doc)], sample).exit_code == 0
    line = one_error_line(invoke(["prompt", "patient-a"], sample))
    assert "changed since the last full `tripartite select`" in line
    result = invoke(["select", "--object", "patient-a"], sample)  # runs a full select, and says so
    assert result.exit_code == 0 and "every object was selected again" in result.output
    # ... on a chunk not analysed yet, which select and doctor say (its extracts are in no prompt).
    assert "note: 1 of 25 chunks are not analysed for every loaded concept" in result.output
    doctor = invoke(["doctor"], sample).output
    assert "[warn] analysis complete: 1 of 25 chunks and 0 of 3 objects not analysed" in doctor
    prompted = invoke(["prompt", "patient-a", "--format", "json"], sample)  # built, and says what it lacks
    assert prompted.exit_code == 0 and json.loads(prompted.stdout)["note"].startswith(
        "1 of 25 chunks were not analysed for every loaded concept when the selection was made")
    assert "no object with id 'nosuch'" in one_error_line(invoke(["select", "--object", "nosuch"], sample))
    # The new document is selected on but not analysed: a question's Tripartite prompt lacks its
    # extracts, and search and eval say so.
    question = "Which anticoagulant for atrial fibrillation with high blood pressure?"
    says = "1 of 25 chunks are not analysed for every loaded concept"
    searched = invoke(["search", "tripartite", question, "--format", "json"], sample)
    assert searched.exit_code == 0 and says in json.loads(searched.stdout)["note"]
    evaluated = invoke(["eval", "--questions", str(samples_dir() / "questions.yaml"), "--modes", "rag,tripartite",
                        "--budgets", "500", "--out", str(tmp_path / "out"), "--json"], sample)
    assert evaluated.exit_code == 0, evaluated.output
    notes = json.loads(evaluated.stdout)["notes"]
    assert [n for n in notes if n.startswith("tripartite: " + says)] and not [n for n in notes if "rag" in n]
    assert invoke(["analyze"], sample).exit_code == 0
    assert "not analysed" not in json.loads(invoke(["search", "tripartite", question, "--format", "json"],
                                                   sample).stdout)["note"]
    # An object removed: the stored distributions still count it, which search says as prompt refuses.
    assert invoke(["select"], sample).exit_code == 0
    assert "behind" not in json.loads(invoke(["search", "tripartite", question, "--format", "json"],
                                             sample).stdout)["note"]
    assert invoke(["objects", "remove", "patient-c"], sample).exit_code == 0
    behind = json.loads(invoke(["search", "tripartite", question, "--format", "json"], sample).stdout)["note"]
    assert "the stored score distributions are behind the graph (objects were removed" in behind
    evaluated = json.loads(invoke(["eval", "--questions", str(samples_dir() / "questions.yaml"), "--modes",
                                   "tripartite", "--budgets", "500", "--out", str(tmp_path / "out2"), "--json"],
                                  sample).stdout)  # said once for the run, not only in each row
    assert [n for n in evaluated["notes"] if n.startswith("tripartite: ") and "distributions are behind" in n]
    # A budget the question alone fills: every mode says no passage fits instead of citing nothing in silence.
    long_question = (note.read_text() + " What next?").replace("\n", " ")
    for mode in ("rag", "hybrid", "tripartite"):
        crowded = json.loads(invoke(["search", mode, long_question, "--max-tokens", "150", "--format", "json"],
                                    sample).stdout)
        assert not crowded["references"] and crowded["note"].startswith("no passage fits the budget of 150 tokens")
    # ... hybrid's default budget too, and a budget that holds the question but none of the passages.
    crowded = json.loads(invoke(["search", "hybrid", long_question * 8, "--format", "json"], sample).stdout)
    assert crowded["note"].startswith("no passage fits the budget of 1,000 tokens")
    short = json.loads(invoke(["search", "rag", "What should someone with heart failure eat?", "--max-tokens", "100",
                               "--format", "json"], sample).stdout)
    assert not short["references"] and short["tokens"] <= 100
    assert short["note"].startswith("no passage fits the budget of 100 tokens") and "each passage found needs more" \
        in short["note"]


def test_a_killed_select_is_refused_until_select_runs_again(env, driver, tmp_path):
    # A graph big enough that select takes a few seconds: 60 objects x 8 concepts x 120 chunks.
    driver.execute_query("""
        UNWIND range(0, 119) AS i CREATE (:Chunk {id: 't' + i, index: i})
        WITH count(*) AS _ UNWIND range(0, 7) AS j CREATE (:Concept {id: 'c' + j, name: 'c' + j})
        WITH count(*) AS _ UNWIND range(0, 59) AS k CREATE (:Object {id: 'o' + k, kind: 'test', text: 'o'})""")
    driver.execute_query("""
        MATCH (c:Concept), (t:Chunk) CREATE (c)-[m:MENTIONED_IN {summary: c.id + t.id}]->(t)
        WITH m CALL db.create.setRelationshipVectorProperty(m, 'embedding', [rand(), rand(), rand()])""")
    driver.execute_query("""
        MATCH (o:Object), (c:Concept) CREATE (o)-[r:CONCERNS {summary: o.id + c.id}]->(c)
        WITH r CALL db.create.setRelationshipVectorProperty(r, 'embedding', [rand(), rand(), rand()])""")
    command = [sys.executable, "-m", "tripartite", "select", "--alpha", "0.8", "--beta", "0.3"]
    # On the Cypher scripts, whose steps commit in many transactions, so the kill lands inside
    # one; the select that puts it right takes the default path (the plugin, where the server has it).
    process = subprocess.Popen(command, env={**os.environ, **env, "TRIPARTITE_SELECT_ENGINE": "cypher"},
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # kill it once it is under way
        records, _, _ = driver.execute_query("MATCH (s:SelectionState) RETURN s.state AS state")
        if records and records[0]["state"] == "running" and driver.execute_query(
                "RETURN COUNT { (:Evidence) } AS n").records[0]["n"] > 0:
            break
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    line = one_error_line(invoke(["prompt", "o1"], env))
    assert "did not finish" in line and "alpha 0.8, beta 0.3" in line and "run `tripartite select` again" in line
    assert invoke(["select"], env).exit_code == 0
    assert invoke(["prompt", "o1", "--format", "json"], env).exit_code == 0


def test_a_reader_that_stops_reading_is_not_a_lost_connection(env, driver):
    # `tripartite ontology load cardiology | true`: the load commits, then printing fails with
    # EPIPE, a ConnectionError to Python; once it read as Neo4j lost and the write rolled back.
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run([sys.executable, "-m", "tripartite", "ontology", "load", "cardiology"],
                              env={**os.environ, **env}, stdout=write_end, stderr=subprocess.PIPE, text=True)
    finally:
        os.close(write_end)
    assert done.returncode == 1 and done.stderr == "", done.stderr  # silent, as a writer to a closed pipe is
    assert one_row(driver, "RETURN COUNT { (:Ontology {id: 'cardiology'}) } AS n")["n"] == 1


# ---- the LLM endpoint fails ----------------------------------------------------------------
@pytest.fixture
def loaded(env):
    for args in (["ingest", str(samples_dir() / "guidelines")], ["ontology", "load", "cardiology"],
                 ["objects", "add", str(samples_dir() / "objects"), "--kind", "anamnesis"]):
        assert invoke(args, env).exit_code == 0
    return env


@pytest.mark.parametrize("failure, most_requests, says", [
    ("500", 5 * 5, "5 tasks in a row failed"),                    # retried, then the breaker
    ("400", 1, "cannot succeed on retry"),                        # no retry, no second task
    ("401", 0, "refused the API key"),                            # the reachability check, before any call
    ("malformed", 5 * 2, "5 tasks in a row failed"),              # each task: one call and one repair
])
def test_a_failing_endpoint_stops_the_run_early_and_loses_nothing(loaded, driver, failure, most_requests, says):
    before = counts(driver)
    with FakeOpenAI() as server:
        server.always = failure
        env = {**loaded, "OPENAI_BASE_URL": server.base_url, "TRIPARTITE_LLM_MODEL": "fake-chat",
               "TRIPARTITE_LLM_BACKOFF": "0.01", "OPENAI_API_KEY": "sk-secret-key"}
        result = invoke(["analyze", "--concurrency", "1"], env)
        assert result.exit_code == 1
        assert len(server.chat_requests()) <= most_requests
        stopped = [line for line in result.output.splitlines() if says in line]
        assert len(stopped) == 1 and stopped[0].startswith("error: ")
        assert "sk-secret" not in result.output
        assert counts(driver) == before  # nothing written for the failed tasks
        # The tasks stay pending: a healthy endpoint finishes them.
        server.always = None
        assert invoke(["analyze"], env).exit_code == 0
        assert counts(driver)["mentioned_in"] > 0

def test_search_with_a_failing_endpoint_is_one_line_per_mode(loaded):
    """Modes that ask the LLM before the answer (the question read like an object, the
    keywords) check the endpoint first, and a call that fails all the same is one line too."""
    question = "What lowers blood pressure?"
    unreachable = {**loaded, "OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "TRIPARTITE_LLM_MODEL": "fake-chat"}
    with FakeOpenAI() as server:
        server.always = "400"  # it answers /models, then refuses every chat request
        refusing = {**loaded, "OPENAI_BASE_URL": server.base_url, "TRIPARTITE_LLM_MODEL": "fake-chat",
                    "OPENAI_API_KEY": "sk-secret-key"}
        for mode in ("tripartite", "local", "hybrid"):
            line = one_error_line(invoke(["search", mode, question], unreachable))
            assert line.startswith("error: LLM endpoint http://127.0.0.1:9/v1 is not reachable"), (mode, line)
            failed = invoke(["search", mode, question], refusing)
            assert failed.exit_code == 1 and "Traceback" not in failed.output
            assert one_error_line(failed).startswith("error: the LLM call failed: "), (mode, failed.output)
            assert "HTTP 400" in failed.output and "sk-secret" not in failed.output
        line = one_error_line(invoke(["prompt", "patient-a", "--mode", "local"], unreachable))
        assert "is not reachable" in line
        # rag asks no LLM: it builds its prompt whatever the endpoint.
        assert invoke(["search", "rag", question], unreachable).exit_code == 0



def test_doctor_never_prints_what_an_endpoint_refusing_the_key_says(env):
    with FakeOpenAI() as server:
        server.always = "401"
        result = invoke(["doctor"], {**env, "OPENAI_BASE_URL": server.base_url.replace("//", "//user:sk-secret@"),
                                     "TRIPARTITE_LLM_MODEL": "fake-chat", "OPENAI_API_KEY": "sk-secret-key"})
        assert "refused the API key" in result.output and "sk-secret" not in result.output


# ---- bad input -----------------------------------------------------------------------------
def bad_inputs(folder: Path) -> dict[str, tuple[list[str], str]]:
    folder.mkdir()
    (folder / "binary.md").write_bytes(b"\x00\x01\x02 not text")
    (folder / "latin1.md").write_bytes("# Caf\xe9\n\nCaf\xe9 au lait.\n".encode("latin-1"))
    (folder / "empty.md").write_text("")
    (folder / "headings.md").write_text("# Only\n\n## Headings\n")
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer\n%%EOF")
    (folder / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (folder / "letter.docx").write_bytes(b"PK\x03\x04 a Word file")
    os.mkfifo(folder / "pipe.md")  # reading it would wait for a writer forever
    (folder / "many-cases.md").write_text("# Cases\n\n" + "The patient reports chest pain. " * 7_000)
    (folder / "case.md").write_text("# Case\n\nThe patient reports chest pain.\n")
    (folder / "cycle.yaml").write_text("name: loop\nclasses:\n  - id: k\n    concepts:\n"
                                       "      - {id: a, name: A, broader: [b]}\n      - {id: b, name: B, broader: [a]}\n")
    return {
        "binary": (["ingest", str(folder / "binary.md")], "binary file"),
        "encoding": (["ingest", str(folder / "latin1.md")], "not UTF-8"),
        "missing": (["ingest", str(folder / "nope.md")], "no such file or folder"),
        "broken pdf": (["ingest", str(folder / "broken.pdf")], "broken or unreadable PDF"),
        "object image": (["objects", "add", str(folder / "image.png"), "--kind", "anamnesis"],
                         "objects are read from Markdown or text files"),
        "document docx": (["ingest", str(folder / "letter.docx"), str(folder / "case.md")],
                          f"error: {folder / 'letter.docx'}: documents are read from Markdown, text or PDF files "
                          "(.markdown, .md, .mdown, .mkd, .pdf, .text, .txt); convert it"),
        "document image": (["ingest", str(folder / "image.png")], f"error: {folder / 'image.png'}: documents are read"),
        "document fifo": (["ingest", str(folder / "pipe.md")],
                          f"error: {folder / 'pipe.md'}: not a regular file (a named pipe); name a file or a folder"),
        "object fifo": (["objects", "add", str(folder / "pipe.md"), "--kind", "anamnesis"],
                        f"error: {folder / 'pipe.md'}: not a regular file (a named pipe); name a file or a folder"),
        "broader cycle": (["ontology", "load", str(folder / "cycle.yaml")], "go round in a circle (a -> b -> a)"),
        "huge object": (["objects", "add", str(folder / "many-cases.md"), "--kind", "anamnesis"],
                        "42,003 tokens is more than one object may hold (32,000"),
        "no such object": (["select", "--object", "nosuch"], "no object with id 'nosuch'"),
        "blank kind": (["objects", "add", str(folder / "case.md"), "--kind", " "], "object kind ' ' is not valid"),
        "kind with a slash": (["objects", "add", str(folder / "case.md"), "--kind", "fault/report"],
                              "object kind 'fault/report' is not valid; use letters, digits"),
    }


@pytest.mark.parametrize("case", ["binary", "encoding", "missing", "broken pdf", "object image", "document docx",
                                  "document image", "document fifo", "object fifo", "broader cycle",
                                  "huge object", "no such object", "blank kind", "kind with a slash"])
def test_bad_input_is_one_line_and_writes_nothing(env, driver, tmp_path, case):
    args, says = bad_inputs(tmp_path / "bad")[case]
    before = counts(driver)
    result = invoke(args, env)
    assert result.exit_code == 1
    assert says in one_error_line(result)
    assert counts(driver) == before


@pytest.mark.parametrize("setting, says", [
    ({"TRIPARTITE_PROGRESS_SECONDS": "x"}, "TRIPARTITE_PROGRESS_SECONDS='x' is not a number"),
    ({"TRIPARTITE_LLM_TIMEOUT": "fast"}, "TRIPARTITE_LLM_TIMEOUT='fast' is not a number"),
    ('[neo4j]\nuri = 5\n', "[neo4j] uri = 5 must be text in quotes"),
    ('[chunking]\nmax_tokens = -1\n', "[chunking] max_tokens = -1 is out of range"),
])
def test_a_bad_setting_is_one_line_before_anything_is_written(env, driver, tmp_path, setting, says):
    """Settings are checked when read, so an ingest never stops after the graph is written."""
    if isinstance(setting, str):
        (tmp_path / "tripartite.toml").write_text(setting)
        args, env = ["--config", str(tmp_path / "tripartite.toml")], env
    else:
        args, env = [], {**env, **setting}
    for command in (["ingest", str(samples_dir() / "guidelines")], ["kg", "status"]):
        result = invoke(args + command, env)
        assert result.exit_code == 1 and says in one_error_line(result)
    assert counts(driver)["documents"] == 0


def test_a_named_pipe_inside_a_folder_is_named_and_never_opened(env, driver, tmp_path):
    """A folder holding a named pipe among its files: the files are read, the pipe (which would
    block a reader forever) is listed as skipped, for documents and objects alike."""
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "case.md").write_text("# Case\n\nThe patient reports chest pain.\n")
    os.mkfifo(folder / "pipe.md")
    for args in (["ingest", str(folder), "--no-embed"], ["objects", "add", str(folder), "--kind", "anamnesis"]):
        result = invoke(args, env)
        assert result.exit_code == 0, result.output
        assert f"skipped   1 not a regular file (a named pipe, socket or device): {folder / 'pipe.md'}" in result.output
    assert counts(driver)["documents"] == 1 and counts(driver)["objects"] == 1


def test_an_object_over_the_token_limit_is_added_when_the_limit_is_raised(env, driver, tmp_path):
    bad_inputs(tmp_path / "bad")
    result = invoke(["objects", "add", str(tmp_path / "bad" / "many-cases.md"), "--kind", "anamnesis",
                     "--max-tokens", "50000"], env)
    assert result.exit_code == 0 and "added     many-cases" in result.output
    assert counts(driver)["objects"] == 1


def test_another_file_with_a_loaded_ontologys_name_replaces_it_only_when_asked(env, driver, tmp_path):
    assert invoke(["ontology", "load", "cardiology"], env).exit_code == 0
    before = counts(driver)
    other = tmp_path / "mine.yaml"
    other.write_text("name: cardiology\nversion: 2\nclasses:\n  - id: k\n    name: K\n    concepts:\n"
                     "      - {id: salt, name: Salt}\n")
    line = one_error_line(invoke(["ontology", "load", str(other)], env))
    assert "an ontology named 'cardiology' is already loaded from" in line and "--replace" in line
    assert counts(driver) == before
    assert invoke(["ontology", "load", str(other), "--replace"], env).exit_code == 0
    assert counts(driver)["concepts"] == 1


def test_empty_and_heading_only_files_are_skipped_with_their_reason(env, driver, tmp_path):
    bad_inputs(tmp_path / "bad")
    result = invoke(["ingest", str(tmp_path / "bad" / "empty.md"), str(tmp_path / "bad" / "headings.md"),
                     "--no-embed"], env)
    assert result.exit_code == 0
    assert "empty.md: no text to ingest (empty file)" in result.output
    assert "headings.md: no text to ingest (only headings, no text under them)" in result.output
    assert counts(driver)["documents"] == 0


def test_a_line_without_spaces_is_cut_into_bounded_chunks(env, driver, tmp_path):
    path = tmp_path / "long.md"
    path.write_text("# Long\n\n" + "x" * 200_000 + "\n")
    assert invoke(["ingest", str(path), "--no-embed"], env).exit_code == 0
    records, _, _ = driver.execute_query("MATCH (c:Chunk) RETURN count(c) AS n, max(size(c.text)) AS longest")
    assert records[0]["n"] >= 100 and records[0]["longest"] <= 1600


@pytest.mark.bare
def test_a_malformed_directive_stops_the_migration(neo4j_db, driver, tmp_path):
    folder = tmp_path / "migrations"
    folder.mkdir()
    (folder / "V001__x.cypher").write_text("// @database system\nCREATE (:Thing);")
    result = invoke(["migrate"], {**cli_env(neo4j_db, tmp_path), "TRIPARTITE_MIGRATIONS_DIR": str(folder)})
    assert result.exit_code == 1 and "malformed directive" in one_error_line(result)
    assert driver.execute_query("RETURN COUNT { (:Thing) } AS n").records[0]["n"] == 0


# ---- Neo4j fails in the middle of a command ---------------------------------------------------
def test_neo4j_errors_are_one_line_and_the_traceback_waits_for_debug(env, neo4j_db, tmp_path):
    wrong = {**env, "NEO4J_DATABASE": "nosuchdb"}
    for args in (["documents", "list"], ["select"]):
        line = one_error_line(invoke(args, wrong))
        assert "has no database 'nosuchdb'" in line and "NEO4J_DATABASE" in line
    doctor = invoke(["doctor"], wrong)
    assert doctor.exit_code == 1 and "Traceback" not in doctor.output and "has no database 'nosuchdb'" in doctor.output
    debug = invoke(["--debug", "documents", "list"], wrong)
    assert debug.exit_code == 1 and "Traceback" in debug.output
    uri = env["NEO4J_URI"].replace("://", "://neo4j:secret-password@")
    shown = invoke(["documents", "list"], {**env, "NEO4J_URI": uri})
    assert shown.exit_code == 0 and "secret-password" not in shown.output
    config = invoke(["config"], {**env, "NEO4J_URI": uri, "OPENAI_BASE_URL": "http://user:sk-key@127.0.0.1:9/v1"})
    assert "secret-password" not in config.output and "sk-key" not in config.output


def held_lock(target, name):
    """Hold a run lock of the test database from this process, as a running command would:
    (start, release) to enter and leave it."""
    import threading

    from tripartite.infra.graph import Graph
    from tripartite.infra.locks import run_lock

    entered, leave = threading.Event(), threading.Event()

    def hold():
        with target.driver() as drv, run_lock(Graph(drv, target.database), name, "test"):
            entered.set()
            leave.wait(120)

    thread = threading.Thread(target=hold, daemon=True)
    thread.start()
    assert entered.wait(60)

    def release():
        leave.set()
        thread.join(60)
    return release


def started(command, env):
    full = {**os.environ, **env}
    full.pop("TRIPARTITE_CONFIG", None)
    return subprocess.Popen([sys.executable, "-m", "tripartite", *command], env=full, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def wait_for_line(process, needle: str, timeout: float = 60) -> str:
    """Read the process's stderr until a line holds `needle` (or it ends)."""
    deadline = time.monotonic() + timeout
    seen = ""
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        seen += line
        if needle in line or (not line and process.poll() is not None):
            break
    return seen


@pytest.mark.parametrize("lock, command", [("migrate", ["migrate"]), ("select", ["select"]),
                                           ("kg", ["kg", "extract"]), ("analyze", ["analyze"]),
                                           ("ingest", ["ingest", str(samples_dir() / "guidelines")]),
                                           ("ingest", ["documents", "remove", "hypertension"])])
def test_a_second_run_waits_for_the_first_and_says_so(env, neo4j_db, lock, command):
    assert invoke(["ontology", "load", "cardiology"], env).exit_code == 0  # something to analyse for
    if command[0] == "documents":
        assert invoke(["ingest", str(samples_dir() / "guidelines" / "hypertension.md")], env).exit_code == 0
    release = held_lock(neo4j_db, lock)
    process = started(command, env)
    try:
        said = wait_for_line(process, "waiting for it to finish")
        assert "is running on this database; waiting for it to finish" in said, said
        assert process.poll() is None  # still waiting
    finally:
        release()
    out, err = process.communicate(timeout=300)
    assert process.returncode == 0, err


def test_two_selects_at_once_leave_one_consistent_state(sample, driver):
    driver.execute_query("MATCH (s:SelectionState) DETACH DELETE s")  # as on a database never selected
    runs = [started(["select", "--alpha", alpha], sample) for alpha in ("0.9", "0.8")]
    outputs = [run.communicate(timeout=300) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    states = one_row(driver, "MATCH (s:SelectionState) RETURN count(s) AS n, collect(s.alpha)[0] AS alpha, "
                             "collect(s.state)[0] AS state")
    assert states["n"] == 1 and states["state"] == "finished"
    kept = selection_snapshot(driver)
    assert invoke(["select", "--alpha", str(states["alpha"])], sample).exit_code == 0  # a clean run of that alpha
    assert selection_snapshot(driver) == kept


def test_two_extractions_at_once_pay_each_call_once(loaded):
    # One call at a time, 0.15 s each: the first run holds the lock for 3.6 s, so the second,
    # however late its process starts on a busy machine, waits past the 1 s after which it says so.
    with FakeOpenAI(delay=0.15) as server:
        env = {**loaded, "OPENAI_BASE_URL": server.base_url, "TRIPARTITE_LLM_MODEL": "fake-chat",
               "TRIPARTITE_LLM_CONCURRENCY": "1"}
        runs = [started(["kg", "extract"], env) for _ in range(2)]
        outputs = [run.communicate(timeout=300) for run in runs]
        assert [run.returncode for run in runs] == [0, 0], outputs
        prompts = [r["body"]["messages"][0]["content"] for r in server.chat_requests()]
    assert len(prompts) == len(set(prompts)) == 24
    assert any("waiting for it to finish" in err for _, err in outputs)


def test_two_batch_submissions_at_once_send_one_batch(loaded):
    # The upload takes 2 s, so the second submission asks for the lock while the first holds it.
    with FakeOpenAI() as server:
        server.upload_delay = 2.0
        env = {**loaded, "OPENAI_BASE_URL": server.base_url, "TRIPARTITE_LLM_MODEL": "fake-chat"}
        runs = [started(["kg", "extract", "--batch"], env) for _ in range(2)]
        outputs = [run.communicate(timeout=300) for run in runs]
        assert sorted(run.returncode for run in runs) == [0, 1], outputs
        assert len(server.batches) == 1 and len(server.files) == 1, outputs
    refused = next(err for run, (_, err) in zip(runs, outputs) if run.returncode == 1)
    errors = [line for line in refused.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and "is not collected yet" in errors[0], refused


def test_the_http_port_given_as_the_bolt_uri_is_named(env, tmp_path):
    import socket
    import threading

    # What Neo4j's HTTP port does (Jetty): the discovery document for GET /, and at once a 400
    # for bytes that are not HTTP, such as Bolt's handshake.
    listener = socket.create_server(("127.0.0.1", 0))
    document = json.dumps({"bolt_direct": "bolt://127.0.0.1:7687", "bolt_routing": "neo4j://127.0.0.1:7687",
                           "neo4j_version": "5.26.19"}).encode()

    def serve():
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            with connection:
                head = connection.recv(4)
                if head == b"GET ":
                    connection.recv(65536)
                    connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                                       + str(len(document)).encode() + b"\r\nConnection: close\r\n\r\n" + document)
                else:
                    connection.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")

    threading.Thread(target=serve, daemon=True).start()
    try:
        port = listener.getsockname()[1]
        for uri in (f"bolt://127.0.0.1:{port}", f"neo4j://127.0.0.1:{port}", f"http://127.0.0.1:{port}"):
            started_at = time.monotonic()
            line = one_error_line(invoke(["documents", "list"], {**env, "NEO4J_URI": uri}))
            assert "bolt://127.0.0.1:7687" in line and time.monotonic() - started_at < 8, line
            assert "connection refused" not in line
    finally:
        listener.close()
    assert "is not a Bolt URI" in one_error_line(invoke(["documents", "list"], {**env, "NEO4J_URI": "https://x:1"}))


def test_eval_uses_a_neo4j_already_on_the_default_port(env, neo4j_db, tmp_path):
    """Without NEO4J_URI every command talks to bolt://127.0.0.1:PORT; eval and demo, which start
    the local server when it is not running, use a Neo4j already listening there (another server
    home's, or the user's own) instead of failing on a taken port."""
    from urllib.parse import urlparse

    address = urlparse(neo4j_db.uri)
    if address.hostname not in ("127.0.0.1", "localhost") or neo4j_db.password:
        pytest.skip("needs the test Neo4j on this machine without authentication")
    assert invoke(["ingest", str(samples_dir() / "guidelines")], env).exit_code == 0
    bare = {k: v for k, v in env.items() if k != "NEO4J_URI"}
    bare.update(TRIPARTITE_BOLT_PORT=str(address.port), TRIPARTITE_SERVER_HOME=str(tmp_path / "never-started"))
    result = invoke(["eval", "--questions", str(samples_dir() / "questions.yaml"), "--modes", "rag",
                     "--budgets", "200", "--out", str(tmp_path / "out")], bare)
    assert result.exit_code == 0, result.output
    assert f"using the Neo4j already listening on 127.0.0.1:{address.port}" in result.output
    assert "taken by another process" not in result.output and not (tmp_path / "never-started").exists()
    assert (tmp_path / "out" / "questions.md").exists()


@pytest.mark.bare
def test_two_migrations_at_once_leave_one_history(neo4j_db, driver, tmp_path):
    env = {**os.environ, **cli_env(neo4j_db, tmp_path)}
    command = [sys.executable, "-m", "tripartite", "migrate"]
    runs = [subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            for _ in range(2)]
    outputs = [run.communicate(timeout=300)[0] for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    assert not any("Traceback" in out or "deadlock" in out.lower() for out in outputs), outputs
    records, _, _ = driver.execute_query("MATCH (m:__TripartiteMigration) RETURN m.file AS file, count(*) AS n")
    assert records and all(r["n"] == 1 for r in records)
    assert sum("applied V001" in out for out in outputs) == 1


@pytest.mark.bare
def test_doctor_says_what_to_do_about_an_edited_migration(neo4j_db, tmp_path):
    folder = tmp_path / "migrations"
    folder.mkdir()
    (folder / "V001__x.cypher").write_text("CREATE (:Thing);")
    env = {**cli_env(neo4j_db, tmp_path), "TRIPARTITE_MIGRATIONS_DIR": str(folder)}
    assert invoke(["migrate"], env).exit_code == 0
    (folder / "V001__x.cypher").write_text("CREATE (:Thing {edited: true});")
    doctor = invoke(["doctor"], env)
    assert doctor.exit_code == 1 and "was edited or removed" in doctor.output and "run `tripartite migrate`" not in doctor.output
    assert "edited after it was applied" in one_error_line(invoke(["migrate"], env))
