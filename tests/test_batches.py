"""The OpenAI Batch API: `--batch` on analyze, kg extract and kg communities, and `batches
list|status|collect`, against the fake OpenAI server (a real HTTP server) with the files and
batches endpoints: a completed batch, a partially failed one and an expired one. The batch's
state lives in the graph, so every step below is a fresh command, as after a restart."""
import json

import pytest
from click.testing import CliRunner

from fake_openai import FakeOpenAI
from tripartite.cli import cli

pytestmark = pytest.mark.neo4j


def invoke(args, env):
    return CliRunner().invoke(cli, args, env=env)


def one(driver, query):
    records, _, _ = driver.execute_query(query)
    return records[0].data()


def extract_counts(driver):
    return one(driver, "RETURN COUNT { ()-[:MENTIONED_IN]->() } AS mentioned, COUNT { ()-[:CONCERNS]->() } AS concerns")


def model_env(env, server):
    return {**env, "OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "sk-test", "TRIPARTITE_LLM_MODEL": "fake-chat",
            "TRIPARTITE_LLM_BACKOFF": "0.01"}


def test_a_batch_is_sent_followed_and_collected_through_the_cache(driver, loaded):
    with FakeOpenAI(structured=True, batch_polls=1) as server:
        env = model_env(loaded, server)
        # --dry-run prices both ways (prompt tokens exact, completions at their max_tokens).
        dry = json.loads(invoke(["analyze", "--dry-run", "--json"], {**env, "TRIPARTITE_LLM_PRICES": "1,3"}).output)
        calls = dry["chunk"]["calls"] + dry["object"]["calls"]
        assert dry["cost"]["prompt_tokens"] == dry["chunk"]["prompt_tokens"] + dry["object"]["prompt_tokens"]
        assert dry["cost"]["live"] > 0 and dry["cost"]["batch"] == pytest.approx(dry["cost"]["live"] / 2, abs=1e-4)
        text = invoke(["analyze", "--dry-run"], {**env, "TRIPARTITE_LLM_MODEL": "gpt-4o-mini"}).output
        assert "with --batch" in text and "gpt-4o-mini list price" in text

        sent = invoke(["analyze", "--batch", "--json"], env)
        assert sent.exit_code == 0, sent.output
        batch = json.loads(sent.output)
        assert batch["id"] and batch["requests"] == calls and not server.chat_requests()  # nothing live
        lines = [json.loads(line) for line in server.files[batch["input_file_id"]].decode().splitlines()]
        assert {line["url"] for line in lines} == {"/v1/chat/completions"}
        assert all(line["body"]["max_tokens"] and line["body"]["response_format"]["type"] == "json_schema"
                   for line in lines)  # the same bounded, constrained requests as live calls
        assert extract_counts(driver) == {"mentioned": 0, "concerns": 0}

        again = invoke(["analyze", "--batch"], env)  # a second batch would pay for the same answers
        assert again.exit_code == 1 and f"batch {batch['id']} for analysis is not collected yet" in again.output

        status = json.loads(invoke(["batches", "status", "--json"], env).output)
        assert [(b["id"], b["state"]) for b in status] == [(batch["id"], "in_progress")]
        collected = invoke(["batches", "collect", "--json"], env)
        assert collected.exit_code == 0, collected.output
        [result] = json.loads(collected.output)
        assert result["state"] == "completed" and result["answered"] == calls and result["failed"] == 0
        assert result["pending"] == 0
        written = extract_counts(driver)
        assert written["mentioned"] > 0 and written["concerns"] > 0
        edge = one(driver, "MATCH ()-[m:MENTIONED_IN]->() RETURN m.provider AS p, m.model AS m LIMIT 1")
        assert edge == {"p": "openai", "m": "fake-chat"}

        # Everything is written: a live run has nothing to do, and nothing is collected twice.
        live = json.loads(invoke(["analyze", "--json"], env).output)
        assert live["calls"] == 0 and not server.chat_requests()[len(server.batch_requests()):]
        assert json.loads(invoke(["batches", "collect", "--json"], env).output) == []
        listed = json.loads(invoke(["batches", "list", "--json"], env).output)
        assert listed[0]["id"] == batch["id"] and listed[0]["collected"] and listed[0]["answered"] == calls
        assert "collected:" in invoke(["batches", "list"], env).output


def test_a_partly_failed_batch_keeps_the_failures_pending_for_the_next_batch(driver, loaded):
    with FakeOpenAI(structured=True, batch_polls=0, batch_outcome="partial") as server:
        env = model_env(loaded, server)
        first = json.loads(invoke(["analyze", "--batch", "--json"], env).output)
        collected = invoke(["batches", "collect", first["id"]], env)
        assert collected.exit_code == 1  # failures are errors, each named
        assert "failed" in collected.output and "stay pending" in collected.output
        [result] = json.loads(invoke(["batches", "list", "--json"], env).output)
        assert result["answered"] == first["requests"] - first["requests"] // 2 and result["failed"] == first["requests"] // 2
        partly = extract_counts(driver)
        server.batch_outcome = "completed"
        second = json.loads(invoke(["analyze", "--batch", "--json"], env).output)
        assert second["requests"] == result["failed"]  # only what failed is sent again
        assert invoke(["batches", "collect"], env).exit_code == 0
        assert extract_counts(driver)["mentioned"] >= partly["mentioned"]
        assert json.loads(invoke(["analyze", "--dry-run", "--json"], env).output)["chunk"]["calls"] == 0


def test_an_expired_batch_writes_what_arrived_and_a_live_run_sends_the_rest(driver, loaded):
    with FakeOpenAI(structured=True, batch_polls=0, batch_outcome="expired") as server:
        env = model_env(loaded, server)
        sent = json.loads(invoke(["analyze", "--batch", "--json"], env).output)
        [result] = json.loads(invoke(["batches", "collect", "--json"], env).output)
        assert result["state"] == "expired" and result["answered"] == sent["requests"] // 2
        assert result["pending"] == sent["requests"] - sent["requests"] // 2
        live = invoke(["analyze", "--json"], env)
        assert live.exit_code == 0, live.output
        assert len([r for r in server.chat_requests() if not r.get("batch")]) == result["pending"]


def test_triplets_and_reports_through_batches(driver, loaded):
    with FakeOpenAI(structured=True, batch_polls=0) as server:
        env = model_env(loaded, server)
        sent = json.loads(invoke(["kg", "extract", "--batch", "--json"], env).output)
        assert sent["requests"] > 0 and not server.chat_requests()
        assert invoke(["batches", "collect"], env).exit_code == 0
        status = json.loads(invoke(["kg", "status", "--json"], env).output)
        assert status["extracted"] == status["chunks"] and status["entities"] > 0
        assert json.loads(invoke(["kg", "extract", "--dry-run", "--json"], env).output)["calls"] == 0
        reports = json.loads(invoke(["kg", "communities", "--batch", "--json"], env).output)
        assert reports["stage"] == "kg-reports" and reports["requests"] > 0
        assert invoke(["batches", "collect"], env).exit_code == 0
        assert json.loads(invoke(["kg", "status", "--json"], env).output)["reports"] > 0
        assert not [r for r in server.chat_requests() if not r.get("batch")]  # every answer came by batch


def test_batch_refusals_are_one_line(loaded):
    offline = invoke(["analyze", "--batch"], loaded)
    assert offline.exit_code == 1 and "--batch needs a configured model" in offline.output
    with FakeOpenAI() as server:
        env = model_env(loaded, server)
        assert invoke(["analyze", "--batch", "--offline"], env).exit_code == 2
        missing = invoke(["batches", "status", "batch_nope"], env)
        assert missing.exit_code == 1 and "no batch 'batch_nope' in this graph" in missing.output
    assert "no batches" in invoke(["batches", "list"], loaded).output
