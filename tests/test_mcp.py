"""`tripartite mcp`: the server started as a subprocess, talked to with the MCP SDK's own
client over stdio and over streamable HTTP, against a real Neo4j holding the sample."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

import anyio
import pytest

from conftest import cli_env, free_port, invoke, load_sample, ok

mcp = pytest.importorskip("mcp")
from mcp import Client, StdioServerParameters  # noqa: E402

pytestmark = pytest.mark.neo4j
TOOLS = {"search", "object_prompt", "trace_chunk", "list_objects", "list_ontologies"}  # add_object: --allow-writes


@pytest.fixture(scope="module")
def sample(neo4j_target, tmp_path_factory):
    """The sample analysed and selected, once for the module (the tests only read, but one)."""
    from conftest import empty

    empty(neo4j_target)
    yield load_sample(cli_env(neo4j_target, tmp_path_factory.mktemp("mcp")), ["analyze"], ["select"])


def stdio(env: dict, *flags: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "tripartite", "mcp", *flags],
                                 env={**os.environ, **env})


def run(work):
    return anyio.run(work)


def test_stdio_lists_tools_builds_prompts_and_reports_errors_as_tool_errors(sample):
    async def work():
        async with Client(stdio(sample)) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert set(tools) == TOOLS
            for tool in tools.values():
                assert tool.description and tool.input_schema["type"] == "object"
            assert tools["search"].input_schema["properties"]["mode"]["enum"] == \
                ["tripartite", "rag", "local", "global", "hybrid"]  # as `tripartite search` lists them
            assert tools["object_prompt"].input_schema["required"] == ["object_id"]
            budget = tools["search"].input_schema["properties"]["max_tokens"]["anyOf"]  # bounds a client can read
            assert {"type": "integer", "minimum": 100, "maximum": 50_000} in budget and {"type": "null"} in budget

            prompt = await client.call_tool("object_prompt", {"object_id": "patient-a"})
            data = prompt.structured_content
            assert not prompt.is_error and data["mode"] == "tripartite" and data["references"]
            assert data["tokens"] > 0 and "[1]" in data["prompt"] and data["concepts"]
            assert json.loads(prompt.content[0].text) == data  # the same result as text
            assert data["prompt"] == invoke(["prompt", "patient-a"], sample).stdout  # what the CLI prints

            rag = await client.call_tool("object_prompt", {"object_id": "patient-a", "mode": "rag"})
            assert not rag.is_error and rag.structured_content["mode"] == "rag"

            found = await client.call_tool("search", {"question": "Which medicines lower blood pressure?",
                                                      "max_tokens": 400})
            result = found.structured_content
            assert not found.is_error and result["mode"] == "hybrid" and 0 < result["tokens"] <= 400
            first = result["references"][0]
            assert first["n"] == 1 and first["document"] and first["section_path"]

            trace = await client.call_tool("trace_chunk", {"chunk_id": first["chunk_id"]})
            assert trace.structured_content["document"] == first["document"] and trace.structured_content["text"]

            listed = await client.call_tool("list_objects", {})
            assert {o["id"] for o in listed.structured_content["objects"]} == {"patient-a", "patient-b", "patient-c"}
            ontologies = await client.call_tool("list_ontologies", {})
            assert ontologies.structured_content["ontologies"][0]["id"] == "cardiology"

            unknown = await client.call_tool("object_prompt", {"object_id": "patient-z"})
            assert unknown.is_error and "no object with id 'patient-z'" in unknown.content[0].text
            assert len(unknown.content[0].text.splitlines()) == 1 and "Traceback" not in unknown.content[0].text
            wrong = await client.call_tool("object_prompt", {"object_id": "", "mode": "nope", "max_tokens": "lots"})
            text = wrong.content[0].text
            assert wrong.is_error and len(text.splitlines()) == 1 and "lots" not in text
            assert "object_id: String should have at least 1 character" in text
            assert "mode: Input should be 'tripartite', 'rag', 'local' or 'global'" in text and "max_tokens: " in text
            default = await client.call_tool("search", {"question": "stroke", "mode": "rag", "max_tokens": None})
            assert not default.is_error and default.structured_content["references"]  # null: the mode's own budget
            flag = await client.call_tool("search", {"question": "stroke", "max_tokens": True})
            assert flag.is_error and "max_tokens: Value error, a budget is a number of tokens, not true or false" \
                in flag.content[0].text

            refused = await client.call_tool("add_object", {"object_id": "note-9", "text": "Chest pain."})
            assert refused.is_error and "Unknown tool" in refused.content[0].text  # not offered at all

            # Concurrent calls on one session all answer.
            answers = []

            async def ask(question):
                answers.append(await client.call_tool("search", {"question": question, "mode": "rag"}))
            async with anyio.create_task_group() as group:
                for question in ("heart failure", "atrial fibrillation", "hypertension", "stroke"):
                    group.start_soon(ask, question)
            assert len(answers) == 4 and not any(a.is_error for a in answers)
    run(work)


def test_add_object_with_allow_writes_analyses_and_selects_it_once(sample):
    text = "# Note 9\n\nShortness of breath and swollen ankles; known hypertension, takes an ACE inhibitor."

    async def work():
        async with Client(stdio(sample, "--allow-writes")) as client:
            assert {t.name for t in (await client.list_tools()).tools} == TOOLS | {"add_object"}
            added = await client.call_tool("add_object", {"object_id": "note-9", "text": text,
                                                          "kind": "anamnesis"})
            data = added.structured_content
            assert not added.is_error and data["status"] == "added" and data["references"]
            assert "Hypertension" in data["concepts"] and len(data["concepts"]) >= 2
            again = await client.call_tool("add_object", {"object_id": "note-9", "text": text,
                                                          "kind": "anamnesis"})
            assert again.structured_content["status"] == "unchanged"
            prompt = await client.call_tool("object_prompt", {"object_id": "note-9"})
            assert not prompt.is_error and prompt.structured_content["tokens"] == data["tokens"]
            assert prompt.structured_content["prompt"] == data["prompt"]
            # An id a stored file holds is not taken over: the object gets another, and says so.
            other = await client.call_tool("add_object", {"object_id": "patient-a", "text": text + " Also gout."})
            assert other.structured_content["object_id"] != "patient-a" and "belongs to another" in \
                other.structured_content["note"]
            # Removing objects leaves the distributions stale until the next select: a tool error.
            ok(["objects", "remove", "note-9", other.structured_content["object_id"]], sample)
            stale = await client.call_tool("object_prompt", {"object_id": "patient-a"})
            assert stale.is_error and "run `tripartite select`" in stale.content[0].text
            ok(["select"], sample)
            assert not (await client.call_tool("object_prompt", {"object_id": "patient-a"})).is_error
            # An id with nothing to name it by is refused (it would be stored as "document"), and
            # an object that concerns no concept says it is stored all the same.
            unnamed = await client.call_tool("add_object", {"object_id": "!!!", "text": text})
            assert unnamed.is_error and "'!!!' is not a usable object id" in unnamed.content[0].text
            unrelated = await client.call_tool("add_object", {"object_id": "note-10", "text": "zzz qqq nothing"})
            assert unrelated.is_error and "(object 'note-10' is stored; `tripartite objects remove note-10` " \
                "removes it)" in unrelated.content[0].text
    try:
        run(work)
    finally:  # the module's other tests see the sample as it was, whatever happened above
        invoke(["objects", "remove", "note-9"], sample)
        invoke(["objects", "remove", "note-10"], sample)
        ok(["select"], sample)


def test_a_database_that_is_down_is_a_tool_error_and_the_server_stays_up(sample):
    down = {**sample, "NEO4J_URI": f"bolt://127.0.0.1:{free_port()}"}

    async def work():
        async with Client(stdio(down)) as client:
            for _ in range(2):  # the server answers again after the first failure
                result = await client.call_tool("list_objects", {})
                assert result.is_error and "Neo4j is not reachable" in result.content[0].text
            assert len((await client.list_tools()).tools) == len(TOOLS)
    run(work)


def test_http_needs_the_bearer_token_and_binds_to_loopback(sample, tmp_path):
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    port = free_port()
    env = {**os.environ, **sample, "TRIPARTITE_MCP_TOKEN": "s3cret-token"}
    server = subprocess.Popen([sys.executable, "-m", "tripartite", "mcp", "--http", str(port)], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert server.poll() is None, server.stderr.read().decode()
            time.sleep(0.2)
        url = f"http://127.0.0.1:{port}/mcp"
        assert httpx2.post(url, json={}).status_code == 401  # no token, no service

        async def work():
            headers = {"Authorization": "Bearer s3cret-token"}
            async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=120)) as http:
                async with Client(streamable_http_client(url, http_client=http)) as client:
                    assert {t.name for t in (await client.list_tools()).tools} == TOOLS
                    found = await client.call_tool("search", {"question": "What is heart failure?", "mode": "rag"})
                    assert not found.is_error and found.structured_content["references"]
                    prompt = await client.call_tool("object_prompt", {"object_id": "patient-b"})
                    assert not prompt.is_error, prompt.content[0].text
                    assert prompt.structured_content["references"][0]["n"] == 1
                    # Over HTTP too: no write without --allow-writes, and an error is one line.
                    refused = await client.call_tool("add_object", {"object_id": "note-9", "text": "Chest pain."})
                    assert refused.is_error and "Unknown tool" in refused.content[0].text
                    unknown = await client.call_tool("object_prompt", {"object_id": "patient-z"})
                    assert unknown.is_error and "no object with id 'patient-z'" in unknown.content[0].text
                    assert len(unknown.content[0].text.splitlines()) == 1
                    assert not (await client.call_tool("list_objects", {})).is_error  # and it keeps serving
        run(work)
    finally:
        server.terminate()
        server.wait(timeout=30)
    # Beyond this machine only with a token; a taken port is one line.
    open_to_all = invoke(["mcp", "--http", f"0.0.0.0:{free_port()}"], {**sample, "TRIPARTITE_MCP_TOKEN": ""})
    assert open_to_all.exit_code == 1 and "TRIPARTITE_MCP_TOKEN" in open_to_all.stderr
    assert "serving MCP" not in open_to_all.stderr  # refused before it says it serves
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = invoke(["mcp", "--http", str(taken.getsockname()[1])], sample)
        assert busy.exit_code == 1 and "cannot serve on 127.0.0.1" in busy.stderr
