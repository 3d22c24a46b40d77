"""Fault injection at the LLM endpoint: what a server sends back never carries a configured
secret into a message, the graph or the answer cache, and never more than an answer's bounds
into memory or the graph. Each case runs the commands a user would, against a real HTTP server
on loopback (tests/fake_openai.py), and reads everything they printed and stored."""
import json
from pathlib import Path

import pytest

from conftest import cli_env, invoke, load_sample
from fake_openai import FakeOpenAI

pytestmark = pytest.mark.neo4j

KEY = "sk-live-4f9c2e7a1b8d6035SECRETKEY"


@pytest.fixture
def env(neo4j_db, tmp_path):
    return cli_env(neo4j_db, tmp_path, TRIPARTITE_LLM_BACKOFF="0")


def stored_texts(driver) -> list[str]:
    """Every property value of every node and relationship, as text (the sample graph is small)."""
    records, _, _ = driver.execute_query("MATCH (n) RETURN properties(n) AS p UNION ALL "
                                         "MATCH ()-[r]->() RETURN properties(r) AS p")
    return [str(value) for record in records for value in record["p"].values()]


def files_text(folder: Path) -> str:
    return "".join(path.read_bytes().decode("latin-1") for path in folder.rglob("*") if path.is_file())


@pytest.mark.parametrize("status", [400, 401, 404, 429, 500])
def test_a_key_the_endpoint_echoes_is_never_printed_stored_or_cached(env, driver, tmp_path, status):
    load_sample(env)
    with FakeOpenAI() as server:
        model = {**env, "OPENAI_BASE_URL": server.base_url, "TRIPARTITE_LLM_MODEL": "fake-chat",
                 "OPENAI_API_KEY": KEY}
        server.echo_status = status
        runs = [invoke(args, model) for args in (
            ["analyze"], ["kg", "extract"], ["ask", "What helps with atrial fibrillation?", "--mode", "rag"],
            ["search", "rag", "What helps with atrial fibrillation?", "--answer"])]
        assert all(r.exit_code == 1 for r in runs), [r.output for r in runs]
        assert server.chat_requests() and all(r["authorization"] == f"Bearer {KEY}" for r in server.chat_requests())
    assert any("***" in r.output for r in runs), [r.output for r in runs]  # what the endpoint said, masked
    later = [invoke(["objects", "list"], env), invoke(["analyze"], env)]  # offline, afterwards
    printed = "".join(r.output for r in runs + later)
    assert KEY not in printed and KEY[:12] not in printed
    assert not any(KEY[:12] in text for text in stored_texts(driver))
    errors = [t for t in stored_texts(driver) if "HTTP" in t]
    assert all(len(t) <= 300 for t in errors)
    assert KEY[:12] not in files_text(tmp_path)  # the answer cache and anything else the commands wrote


def test_an_endpoint_that_ignores_max_tokens_stores_nothing_past_the_bounds(env, driver):
    """A 2 MB extract for a short chunk: the response is read no further than the answer's
    max_tokens allow, counted as cut (and asked again, briefly: the repair's answer stands), and
    nothing longer than an extract may be is stored."""
    load_sample(env)
    with FakeOpenAI() as server:
        model = {**env, "OPENAI_BASE_URL": server.base_url, "TRIPARTITE_LLM_MODEL": "fake-chat"}
        server.huge_extract = 2_000_000
        result = invoke(["analyze", "--json"], model)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    tasks = sum(stage["tasks"] for stage in report["stages"].values())
    assert report["truncated"] == tasks and report["stages"]["chunk"]["repairs"] == report["stages"]["chunk"]["tasks"]
    longest, _, _ = driver.execute_query("MATCH ()-[r:MENTIONED_IN|CONCERNS]->() "
                                         "RETURN max(size(r.summary)) AS longest")
    assert (longest[0]["longest"] or 0) <= 600


def test_extracts_longer_than_the_schema_allows_are_clipped_and_counted(env, driver):
    """An endpoint that honours max_tokens but not maxLength: extracts of 2,000 characters are
    cut to the 600 the schema asks for, and the run's table counts them as clipped."""
    load_sample(env)
    with FakeOpenAI() as server:
        model = {**env, "OPENAI_BASE_URL": server.base_url, "TRIPARTITE_LLM_MODEL": "fake-chat",
                 "TRIPARTITE_LLM_STRUCTURED": "off"}
        server.huge_extract = 2_000
        result = invoke(["analyze"], model)
    assert result.exit_code == 0, result.output
    header = next(line for line in result.output.splitlines() if line.startswith("stage"))
    column = header.split().index("clipped")
    rows = [line.split() for line in result.output.splitlines() if line.split()[:1] in (["chunk"], ["object"])]
    assert sum(int(row[column]) for row in rows) > 0, result.output
    longest, _, _ = driver.execute_query("MATCH ()-[r:MENTIONED_IN|CONCERNS]->() "
                                         "RETURN max(size(r.summary)) AS longest, count(r) AS n")
    assert longest[0]["n"] > 0 and longest[0]["longest"] <= 600
