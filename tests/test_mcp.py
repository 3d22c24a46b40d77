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
TOOLS = {"search", "object_prompt", "trace_chunk", "list_objects", "list_ontologies", "find_concepts",
         "walk_concepts"}  # add_object: --allow-writes
QUESTION = "Given the patient's history below, what should the clinician consider next, and why?"  # the plugin's


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
            assert prompt.content[0].text == data["prompt"]  # the text is the prompt itself, not JSON
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
            # offline, the extractive reader answered: no LLM call, and the result says who read it
            assert data["llm_calls"] == 0 and data["analysed_by"] == "the offline extractive reader (no LLM)"
            assert data["question"] == QUESTION and added.content[1].text == data["prompt"]
            assert added.content[0].text.startswith("added note-9: ") and "no LLM call" in added.content[0].text
            again = await client.call_tool("add_object", {"object_id": "note-9", "text": text,
                                                          "kind": "anamnesis"})
            assert again.structured_content["status"] == "unchanged"
            prompt = await client.call_tool("object_prompt", {"object_id": "note-9"})
            assert not prompt.is_error and prompt.structured_content["tokens"] == data["tokens"]
            assert prompt.structured_content["prompt"] == data["prompt"]
            # another text under the id it stored replaces that object (hence destructiveHint)
            changed = await client.call_tool("add_object", {"object_id": "note-9", "text": text + " Also asthma.",
                                                            "kind": "anamnesis"})
            assert changed.structured_content["status"] == "changed"
            assert changed.structured_content["object_id"] == "note-9"
            # An id a stored file holds is not taken over: the object gets another, and says so.
            other = await client.call_tool("add_object", {"object_id": "patient-a", "text": text + " Also gout."})
            assert other.structured_content["object_id"] != "patient-a" and "belongs to another" in \
                other.structured_content["note"]
            # Removing objects leaves the distributions stale until the next select: a tool error.
            ok(["objects", "remove", "note-9", other.structured_content["object_id"]], sample)
            stale = await client.call_tool("object_prompt", {"object_id": "patient-a"})
            assert stale.is_error and "ask the operator to run `tripartite select`" in stale.content[0].text
            ok(["select"], sample)
            assert not (await client.call_tool("object_prompt", {"object_id": "patient-a"})).is_error
            # An id with nothing to name it by is refused (it would be stored as "document"), and
            # an object that concerns no concept says it is stored all the same.
            unnamed = await client.call_tool("add_object", {"object_id": "!!!", "text": text})
            assert unnamed.is_error and "'!!!' is not a usable object id" in unnamed.content[0].text
            unrelated = await client.call_tool("add_object", {"object_id": "note-10", "text": "zzz qqq nothing"})
            assert unrelated.is_error and "(object 'note-10' is stored; the operator can remove it with " \
                "`tripartite objects remove note-10`)" in unrelated.content[0].text
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


# ---- issue 52, point 1: titles and annotations, readable text, concepts, prompts, resources, hints ----------------

READ_ONLY = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True}


def _annotations(tool) -> dict:
    return tool.annotations.model_dump(by_alias=True, exclude_none=True)


def test_tools_carry_titles_and_annotations_that_tell_the_truth(sample):
    async def work():
        async with Client(stdio(sample, "--allow-writes")) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            for tool in tools.values():
                assert tool.title and tool.annotations.title == tool.title and tool.output_schema
                assert "\n    " not in tool.description  # the docstring's indentation is gone
            for name in TOOLS:  # offline (no LLM, local embeddings) nothing reaches beyond the database
                assert _annotations(tools[name]) == {"title": tools[name].title, **READ_ONLY, "openWorldHint": False}
            assert _annotations(tools["add_object"]) == {"title": "Add an object", "readOnlyHint": False,
                                                         "destructiveHint": True, "idempotentHint": True,
                                                         "openWorldHint": False}
        # With an LLM configured, the tools that may call it say so; the rest stay closed.
        llm = {**sample, "TRIPARTITE_LLM_MODEL": "some-model", "OPENAI_BASE_URL": f"http://127.0.0.1:{free_port()}/v1"}
        async with Client(stdio(llm, "--allow-writes")) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert {n for n, t in tools.items() if t.annotations.open_world_hint} == \
                {"search", "object_prompt", "add_object"}
            assert all(tools[n].annotations.read_only_hint for n in TOOLS)
    run(work)


def test_text_content_is_the_prompt_and_the_question_is_the_plugins(sample):
    async def work():
        async with Client(stdio(sample)) as client:
            for mode in ("tripartite", "rag", "local"):  # global needs the triplet graph, which the sample lacks
                result = await client.call_tool("object_prompt", {"object_id": "patient-c", "mode": mode})
                data = result.structured_content
                assert not result.is_error and data["question"] == QUESTION, mode
                assert result.content[0].text == data["prompt"] and "[1]" in data["prompt"] and data["references"]
                assert data["prompt"].startswith(f"Question: {QUESTION}")
            no_reports = await client.call_tool("object_prompt", {"object_id": "patient-c", "mode": "global"})
            assert no_reports.is_error and no_reports.content[0].text.endswith(
                "build them with `tripartite kg extract` and then `tripartite kg communities` (the `tripartite` "
                "commands are for the operator of this server; no tool runs them)")
            found = await client.call_tool("search", {"question": "What is heart failure?", "mode": "rag"})
            assert found.content[0].text == found.structured_content["prompt"] and "[1]" in found.content[0].text
            assert not found.content[0].text.lstrip().startswith("{")  # not JSON dumped as a string
            crowded = await client.call_tool("object_prompt", {"object_id": "patient-a", "mode": "rag",
                                                               "max_tokens": 100})
            note = crowded.structured_content["note"]
            assert note and [c.text for c in crowded.content] == [crowded.structured_content["prompt"], f"Note: {note}"]
            listed = await client.call_tool("list_objects", {})
            assert listed.content[0].text.splitlines()[0] == \
                "patient-a (anamnesis): Patient A; 8 concepts; analysed by extractive/extractive-v3"
            trace = await client.call_tool("trace_chunk", {"chunk_id": found.structured_content["references"][0]
                                                           ["chunk_id"]})
            head, _, body = trace.content[0].text.partition("\n\n")
            assert head.startswith("Heart failure > ") and body == trace.structured_content["text"]
    run(work)


def _docs_section() -> str:
    from pathlib import Path

    return (Path(__file__).resolve().parents[1] / "docs" / "mcp.md").read_text()


def _blocks(language: str) -> list[str]:
    import re

    return re.findall(rf"```{language}\n(.*?)```", _docs_section(), re.S)


def test_concepts_are_found_by_code_name_or_synonym_and_walked_as_the_docs_show(sample):
    examples = [block for block in _blocks("text") if block.split(" ", 1)[0] in ("find_concepts", "walk_concepts")]
    assert len(examples) == 2

    async def work():
        async with Client(stdio(sample)) as client:
            for example in examples:  # docs/mcp.md's examples, called and compared line by line
                call, _, shown = example.partition("\n")
                name, _, arguments = call.partition(" ")
                result = await client.call_tool(name, json.loads(arguments))
                assert not result.is_error and result.content[0].text == shown.rstrip("\n"), example
            for text in ("cardiology:myocardial_infarction", "MESH:D009203", "D009203", "Myocardial infarction",
                         "heart attack", "infarct"):
                found = await client.call_tool("find_concepts", {"text": text})
                first = found.structured_content["concepts"][0]
                assert first["id"] == "cardiology:myocardial_infarction", text
                if text == "cardiology:myocardial_infarction":  # the code named is the one that matched
                    assert first["matched"] == f"code {text}"
                assert first["broader"] == [{"id": "cardiology:coronary_artery_disease",
                                             "name": "Coronary artery disease"}]
            none = await client.call_tool("find_concepts", {"text": "zzz-nothing"})
            assert not none.is_error and none.structured_content["concepts"] == []
            assert "list_ontologies" in none.content[0].text
            down = await client.call_tool("walk_concepts", {"concept": "cardiology:coronary_artery_disease"})
            assert [c["id"] for c in down.structured_content["concepts"]] == ["cardiology:myocardial_infarction"]
            unknown = await client.call_tool("walk_concepts", {"concept": "heart"})  # a part names no one concept
            assert unknown.is_error and "find_concepts" in unknown.content[0].text
    run(work)


def test_a_stale_selection_asks_the_operator_to_select_again(sample, neo4j_target):
    bump = "MATCH (v:InputsVersion {id: 'current'}) SET v.version = coalesce(v.version, 0) + $by"

    async def work():
        async with Client(stdio(sample)) as client:
            stale = await client.call_tool("object_prompt", {"object_id": "patient-a"})
            assert stale.is_error and "ask the operator to run `tripartite select` again" in stale.content[0].text
    with neo4j_target.driver() as driver:
        driver.execute_query(bump, by=1, database_=neo4j_target.database)  # documents changed since the select
        try:
            run(work)
        finally:
            driver.execute_query(bump, by=-1, database_=neo4j_target.database)


def test_walk_concepts_goes_several_steps_and_stops_at_its_limit(sample, tmp_path):
    tree = tmp_path / "tree.yaml"
    tree.write_text("name: tree\nversion: 1\ndescription: A hierarchy to walk.\nclasses:\n  - id: all\n    name: All\n"
                    "    concepts:\n"
                    "      - {id: root, name: Root thing, description: The top.}\n"
                    "      - {id: mid, name: Middle thing, broader: [root], description: Below the top.}\n"
                    "      - {id: leaf_a, name: Leaf A, broader: [mid], description: A leaf.}\n"
                    "      - {id: leaf_b, name: Leaf B, broader: [mid], description: Another leaf.}\n")
    ok(["ontology", "load", str(tree)], sample)

    async def work():
        async with Client(stdio(sample)) as client:
            walked = (await client.call_tool("walk_concepts", {"concept": "tree:root", "depth": 3})).structured_content
            assert [(c["id"], c["steps"], c["reached_from"]) for c in walked["concepts"]] == \
                [("tree:mid", 1, "tree:root"), ("tree:leaf_a", 2, "tree:mid"), ("tree:leaf_b", 2, "tree:mid")]
            assert not walked["truncated"] and walked["concepts"][0]["narrower"] == 2
            one = (await client.call_tool("walk_concepts", {"concept": "Root thing", "depth": 1})).structured_content
            assert [c["id"] for c in one["concepts"]] == ["tree:mid"]
            cut = (await client.call_tool("walk_concepts", {"concept": "tree:root", "depth": 3, "limit": 2}))
            assert [c["id"] for c in cut.structured_content["concepts"]] == ["tree:mid", "tree:leaf_a"]
            assert cut.structured_content["truncated"] and "more" in cut.content[0].text
            up = (await client.call_tool("walk_concepts", {"concept": "Leaf B", "direction": "broader",
                                                           "depth": 5})).structured_content
            assert [(c["id"], c["direction"], c["steps"]) for c in up["concepts"]] == \
                [("tree:mid", "broader", 1), ("tree:root", "broader", 2)]
            both = (await client.call_tool("walk_concepts", {"concept": "tree:mid", "direction": "both"}))
            assert {(c["id"], c["direction"]) for c in both.structured_content["concepts"]} == \
                {("tree:root", "broader"), ("tree:leaf_a", "narrower"), ("tree:leaf_b", "narrower")}
            found = (await client.call_tool("find_concepts", {"text": "leaf"})).structured_content["concepts"]
            assert {c["id"] for c in found} == {"tree:leaf_a", "tree:leaf_b"} and found[0]["concept_class"] == "All"
    try:
        run(work)
    finally:
        ok(["ontology", "remove", "tree"], sample)
        ok(["select"], sample)


def test_prompts_and_resources_are_served_with_real_content(sample):
    from mcp.shared.exceptions import MCPError

    async def work():
        async with Client(stdio(sample)) as client:
            prompts = {p.name: p for p in (await client.list_prompts()).prompts}
            assert set(prompts) == {"cross_examine", "answer_from_documents"}
            assert all(p.title and p.description for p in prompts.values())
            assert [(a.name, a.required) for a in prompts["cross_examine"].arguments] == \
                [("object_id", True), ("mode", False)]
            examined = await client.get_prompt("cross_examine", {"object_id": "patient-a"})
            built = await client.call_tool("object_prompt", {"object_id": "patient-a"})
            assert [(m.role, m.content.text) for m in examined.messages] == \
                [("user", built.structured_content["prompt"])]
            answered = await client.get_prompt("answer_from_documents", {"question": "What is atrial fibrillation?",
                                                                         "mode": "rag"})
            searched = await client.call_tool("search", {"question": "What is atrial fibrillation?", "mode": "rag"})
            assert answered.messages[0].content.text == searched.structured_content["prompt"]
            with pytest.raises(MCPError) as missing:
                await client.get_prompt("cross_examine", {"object_id": "patient-z"})
            assert str(missing.value.message) == "no object with id 'patient-z'; call list_objects for the ids"

            listed = {str(r.uri): r for r in (await client.list_resources()).resources}
            assert {"tripartite://objects", "tripartite://ontologies", "tripartite://documents",
                    "tripartite://objects/patient-a", "tripartite://documents/hypertension"} <= set(listed)
            templates = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}
            assert templates == {"tripartite://objects/{object_id}", "tripartite://documents/{document_id}"}

            async def read(uri):
                return (await client.read_resource(uri)).contents[0]
            objects = json.loads((await read("tripartite://objects")).text)
            assert [o["id"] for o in objects] == ["patient-a", "patient-b", "patient-c"]
            assert json.loads((await read("tripartite://ontologies")).text)[0]["id"] == "cardiology"
            documents = json.loads((await read("tripartite://documents")).text)
            assert {d["id"] for d in documents} == {"atrial-fibrillation", "heart-failure", "hypertension"}
            text = await read("tripartite://objects/patient-a")
            assert text.mime_type == "text/plain" and text.text.startswith("# Patient A")
            document = (await read("tripartite://documents/hypertension")).text
            assert document.startswith("# Hypertension\n\n## Hypertension (chunk hypertension:")
            assert document.count("\n## ") == next(d["chunks"] for d in documents if d["id"] == "hypertension")
            with pytest.raises(MCPError) as unknown:
                await read("tripartite://documents/nope")
            assert "no document with id 'nope'" in unknown.value.message
    run(work)


def test_error_hints_speak_in_tools_and_arguments():
    from tripartite.serving.hints import for_agents

    assert for_agents("no object with id 'x'; see `tripartite objects list`") == \
        "no object with id 'x'; call list_objects for the ids"
    assert for_agents("object 'x' has not been analysed; run `tripartite analyze` and `tripartite select` first "
                      "(see `tripartite objects list`)") == \
        ("object 'x' has not been analysed; ask the operator to run `tripartite analyze` and `tripartite select` "
         "first (call list_objects for the ids)")
    assert for_agents("the map budget of 500 tokens holds no map prompt (the most relevant report's takes 812): "
                      "give --map-tokens 812 or more").endswith(
        "ask the operator to set [search] map_tokens to 812 in tripartite.toml or more")
    loaded = for_agents("no ontology is loaded; load one with `tripartite ontology load PLUGIN`")
    assert loaded.endswith("(the `tripartite` commands are for the operator of this server; no tool runs them)")
    # every hint the package's errors and notes give, said to an agent: no bare command line is left
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "tripartite"
    for part in ("search", "selection", "objects", "lexical", "ontology", "infra"):
        for path in (root / part).rglob("*.py"):
            for hint in re.findall(r'"([^"\n]*`tripartite [^"\n]*)"', path.read_text()):
                said = for_agents(hint)
                assert "operator" in said or "`tripartite " not in said, (path.name, hint)


def test_the_docs_host_snippet_starts_the_server_from_any_folder(sample, tmp_path):
    config = next(json.loads(block) for block in _blocks("json") if "mcpServers" in block)["mcpServers"]["tripartite"]
    assert config["args"] == ["-m", "tripartite", "mcp"] and os.path.isabs(config["command"])
    assert set(config["env"]) == {"NEO4J_URI", "NEO4J_USER", "NEO4J_PASSWORD", "NEO4J_DATABASE"}
    # as a host runs it: the absolute path of this Python, only the snippet's env (over the SDK's few
    # inherited variables), and a folder with nothing of the project in it
    params = StdioServerParameters(command=sys.executable, args=config["args"], cwd=str(tmp_path),
                                   env={name: sample[name] for name in config["env"]})

    async def work():
        async with Client(params) as client:
            assert {t.name for t in (await client.list_tools()).tools} == TOOLS
            prompt = await client.call_tool("object_prompt", {"object_id": "patient-b"})
            assert not prompt.is_error and prompt.structured_content["references"], prompt.content[0].text
    run(work)
