"""neo4j-graphrag's GraphRAG on the project's graph, the three ways in (issue 52, point 2): the
project's TripartiteRetriever (an object, a free-text question), neo4j-graphrag's
VectorRetriever and VectorCypherRetriever on the chunk index, and its Text2CypherRetriever
with the project's schema; each with the official clients (neo4j-graphrag, its OpenAILLM)
and a real OpenAI-compatible HTTP server (tests/fake_openai.py) that records what the LLM
was sent. The examples of docs/neo4j-graphrag.md are run as they stand, and no server notification reaches
the caller's log from the project's own queries."""
from __future__ import annotations

import logging
import re
import time

import neo4j
import pytest

from conftest import REPO, cli_env, invoke
from fake_openai import FakeOpenAI

pytestmark = pytest.mark.neo4j

QUESTION = "How is heart failure treated?"
PLUGIN_QUESTION = "Given the patient's history below, what should the clinician consider next, and why?"
PATIENT_B_CYPHER = ("MATCH (o:Object {id: 'patient-b'})-[r:CONCERNS]->(c:Concept) "
                    "RETURN c.name AS concept, r.summary AS says ORDER BY concept")
# Labels, properties and relationship types of the project's own bookkeeping, none of them domain data.
INTERNAL = ("__TripartiteLock", "__TripartiteMigration", "SelectionState", "InputsVersion", "ScoreBin",
            "ScoreDistribution", "AnalysisRun", "ReportSentence", "HAS_SENTENCE", "unbinned", "embedding",
            "analysed_concepts", "analysed_by", "kg_fingerprint", "kg_version", "gloss_key", "report_input")
VECTOR_NUMBERS = re.compile(r"-?\d\.\d{6,}(?:e-?\d+)?,\s*-?\d\.\d{6,}")  # two long floats in a row


class CypherWritingOpenAI(FakeOpenAI):
    """The fake endpoint, writing Cypher when neo4j-graphrag's Text2Cypher prompt asks for it."""

    def chat_response(self, body: dict):
        prompt = body["messages"][-1]["content"]
        if "Generate a Cypher statement" not in prompt:
            return super().chat_response(body)
        return (200, {"id": "chatcmpl-cypher", "object": "chat.completion", "created": int(time.time()),
                      "model": body.get("model"),
                      "choices": [{"index": 0, "finish_reason": "stop",
                                   "message": {"role": "assistant", "content": PATIENT_B_CYPHER}}],
                      "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})


@pytest.fixture(scope="module")
def demo(module_db, tmp_path_factory):
    """The demo's graph, built offline once for the module; the CLI environment that built it."""
    env = cli_env(module_db, tmp_path_factory.mktemp("graphrag"))
    result = invoke(["demo", "--json"], env)
    assert result.exit_code == 0, result.output
    return env


@pytest.fixture
def user_env(demo, tmp_path, monkeypatch):
    """The process environment of a neo4j-graphrag user: the demo's database, no LLM configured
    for the project (its own steps run offline), an OpenAI-compatible endpoint for OpenAILLM."""
    for key, value in demo.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("TRIPARTITE_LLM_CACHE", str(tmp_path / "llm-cache.sqlite"))
    monkeypatch.delenv("TRIPARTITE_LLM_MODEL", raising=False)
    monkeypatch.chdir(tmp_path)  # no tripartite.toml of the repository's
    with CypherWritingOpenAI() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "fake-key-for-the-fake-server")  # a word such as "test" would be masked everywhere
        yield server


@pytest.fixture
def notifications(caplog):
    """What the driver logs of the server's notifications (the suite quiets "neo4j" otherwise)."""
    caplog.set_level(logging.DEBUG, logger="neo4j.notifications")
    return lambda: [r for r in caplog.records if r.name == "neo4j.notifications"]


def plain_driver(target):
    """A driver as a user opens one: server notifications on (the driver's default)."""
    return neo4j.GraphDatabase.driver(target.uri, auth=(target.user, target.password) if target.password else None)


def docs_examples() -> str:
    """The Python blocks of docs/neo4j-graphrag.md's code section, in order, as one script."""
    text = (REPO / "docs" / "neo4j-graphrag.md").read_text(encoding="utf-8")
    start = text.index("\n## The code, as it stands\n")
    section = text[start:text.index("\n## ", start + 1)]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)
    assert len(blocks) == 4, "the section's examples: setup, the project's prompts, vector retrievers, Text2Cypher"
    return "\n".join(blocks)


def sent(server: FakeOpenAI, n: int) -> list[dict]:
    """The messages of the n-th chat request."""
    return server.chat_requests()[n]["body"]["messages"]


def test_docs_examples_run_as_they_stand(user_env, module_db, notifications):
    from tripartite.infra.tokens import count_tokens
    from tripartite.search.graphrag_schema import TEXT2CYPHER_SCHEMA

    if module_db.password:
        pytest.skip("the examples' driver has no credentials")
    names: dict = {}
    exec(compile(docs_examples(), "docs/neo4j-graphrag.md", "exec"), names)  # noqa: S102 (the docs' own code)
    names["driver"].close()
    server = user_env
    assert len(server.chat_requests()) == 7  # three Tripartite, two vector, Text2Cypher: its Cypher, its answer

    # The project's prompts: the LLM is sent the prompt itself, the real question on its first line.
    for n, (key, question) in enumerate([("about_patient", PLUGIN_QUESTION),
                                         ("asked_of_patient", "Should she take a blood thinner?"),
                                         ("about_documents", QUESTION)]):
        result = names[key]
        prompt = result.retriever_result.metadata["result"].prompt
        messages = sent(server, n)
        assert messages[0]["role"] == "system" and "question at the top" in messages[0]["content"]
        assert messages[-1]["content"] == prompt.rstrip("\n")
        assert messages[-1]["content"].split("\n", 1)[0] == f"Question: {question}"
        assert "patient-b" not in messages[-1]["content"].split("\n", 1)[0]
        assert isinstance(result.answer, str) and result.answer
    assert names["about_documents"].retriever_result.metadata["mode"] == "hybrid"
    assert names["about_patient"].retriever_result.metadata["object_id"] == "patient-b"

    # The vector retrievers: each chunk's text and reference, no vector, no bookkeeping, small.
    for n, key in ((3, "from_passages"), (4, "from_plain")):
        items = names[key].retriever_result.items
        assert len(items) == 3
        user = sent(server, n)[-1]["content"]
        context = user.split("Context:\n", 1)[1].split("\n\nExamples:", 1)[0]
        assert context == "\n".join(item.content for item in items)
        assert user.split("Question:\n", 1)[1].startswith(QUESTION)
        assert count_tokens(context) < 600, count_tokens(context)
        assert not VECTOR_NUMBERS.search(user) and not any(word in user for word in INTERNAL)
        for item in items:
            chunk_id = item.metadata["chunk_id"]
            assert f"(chunk {chunk_id})" in item.content or f"[chunk {chunk_id}]" in item.content
    assert "[Heart failure > " in sent(server, 3)[-1]["content"]  # Document > Section

    # Text2Cypher: the project's schema in the prompt, the Cypher run, its rows the context.
    cypher_prompt = sent(server, 5)[-1]["content"]
    assert TEXT2CYPHER_SCHEMA in cypher_prompt and "USER INPUT: 'Which concepts does patient-b concern?'" in cypher_prompt
    found = names["from_cypher"].retriever_result
    assert found.metadata["cypher"] == PATIENT_B_CYPHER and len(found.items) >= 3
    assert "Which concepts does patient-b concern?" in sent(server, 6)[-1]["content"]
    assert notifications() == []


def test_tripartite_retriever_takes_an_object_or_a_question(demo, module_db, settings_for):
    from tripartite.infra.errors import TripartiteError
    from tripartite.search.retriever import TripartiteRetriever

    settings = settings_for(module_db)
    with module_db.driver() as driver:
        retriever = TripartiteRetriever(driver, module_db.database, settings=settings, max_tokens=500)
        by_id = retriever.search(query_text="patient-b")
        by_argument = retriever.search(object_id="patient-b")
        assert [i.content for i in by_id.items] == [i.content for i in by_argument.items]
        built = by_id.metadata["tripartite"]
        assert by_id.metadata["question"] == PLUGIN_QUESTION and built["tokens"] <= 500 and built["references"]
        assert "\n".join(i.content for i in by_id.items) == built["prompt"].rstrip("\n")
        asked = retriever.search(query_text="Is a beta blocker right for her?", object_id="patient-b")
        assert asked.items[0].content.startswith("Question: Is a beta blocker right for her?")
        assert asked.metadata["result"].object_id == "patient-b"

        hybrid = retriever.search(query_text=QUESTION)
        assert hybrid.metadata["mode"] == "hybrid" and hybrid.metadata["result"].references
        assert hybrid.items[0].content.startswith(f"Question: {QUESTION}")
        paper = retriever.search(query_text=QUESTION, question_mode="tripartite")
        assert paper.metadata["result"].mode == "tripartite" and paper.metadata["result"].concepts
        with pytest.raises(TripartiteError, match="question is empty"):
            retriever.search(query_text="  ")
        with pytest.raises(TripartiteError, match="question_mode 'vector' is unknown"):
            retriever.search(query_text=QUESTION, question_mode="vector")
        with pytest.raises(TripartiteError, match="no object with id 'patient-x'"):
            retriever.search(object_id="patient-x")


def test_vector_retrievers_send_text_and_reference_not_vectors(demo, module_db, settings_for):
    from neo4j_graphrag.retrievers import VectorCypherRetriever, VectorRetriever

    from tripartite.infra.tokens import count_tokens
    from tripartite.search.graphrag import (CHUNK_CONTEXT_QUERY, CHUNK_INDEX, CHUNK_PROPERTIES, chunk_filter,
                                            chunk_item, embedder)

    query_embedder = embedder(settings_for(module_db))
    with module_db.driver() as driver:
        stored = driver.execute_query("MATCH (t:Chunk) RETURN collect(DISTINCT t.embedding_model) AS models",
                                      database_=module_db.database).records[0]["models"]
        assert stored == [query_embedder.model]  # the query is read by the chunks' own model
        # neo4j-graphrag's defaults: every property but the indexed vector, the second vector among them.
        default = VectorRetriever(driver, CHUNK_INDEX, query_embedder, neo4j_database=module_db.database)
        default_context = "\n".join(i.content for i in default.search(query_text=QUESTION, top_k=3).items)
        assert "context_embedding" in default_context and count_tokens(default_context) > 5000
        plain = VectorRetriever(driver, CHUNK_INDEX, query_embedder, return_properties=CHUNK_PROPERTIES,
                                result_formatter=chunk_item, neo4j_database=module_db.database)
        passages = VectorCypherRetriever(driver, CHUNK_INDEX, CHUNK_CONTEXT_QUERY, query_embedder,
                                         result_formatter=chunk_item, neo4j_database=module_db.database)
        plain_items = plain.search(query_text=QUESTION, top_k=3).items
        passage_items = passages.search(query_text=QUESTION, top_k=3).items
        exact = plain.search(query_text=QUESTION, top_k=3, filters=chunk_filter(query_embedder)).items
        references = {r["chunk_id"]: r for r in driver.execute_query(
            "MATCH (t:Chunk)-[:FROM_DOCUMENT]->(d:Document) OPTIONAL MATCH (s:Section {id: t.section_id}) "
            "RETURN t.id AS chunk_id, t.text AS text, d.title AS document, s.path AS section_path",
            database_=module_db.database).records}
    from tripartite.lexical.trails import reference_trail

    assert [i.metadata["chunk_id"] for i in plain_items] == [i.metadata["chunk_id"] for i in passage_items] \
        == [i.metadata["chunk_id"] for i in exact]
    for plain_item, item in zip(plain_items, passage_items):
        row = references[item.metadata["chunk_id"]]
        assert item.metadata["reference"] == reference_trail(dict(row))
        assert item.content == f"[{reference_trail(dict(row))}] (chunk {row['chunk_id']})\n{row['text']}"
        assert plain_item.content == f"[chunk {row['chunk_id']}]\n{row['text']}"
    for items in (plain_items, passage_items):
        context = "\n".join(i.content for i in items)
        assert count_tokens(context) < 600 and not VECTOR_NUMBERS.search(context)


def test_text2cypher_schema_is_the_domains_and_small(demo, module_db):
    from neo4j_graphrag.schema import get_schema

    from tripartite.infra.tokens import count_tokens
    from tripartite.search.graphrag_schema import TEXT2CYPHER_EXAMPLES, TEXT2CYPHER_SCHEMA

    assert count_tokens(TEXT2CYPHER_SCHEMA) <= 1500
    assert not any(re.search(rf"\b{re.escape(word)}\b", TEXT2CYPHER_SCHEMA) for word in INTERNAL)
    with module_db.driver() as driver:
        automatic = get_schema(driver, database=module_db.database)
        assert "__TripartiteMigration" in automatic and "ScoreBin" in automatic  # what the schema leaves out
        labels = {r["label"] for r in driver.execute_query("CALL db.labels() YIELD label RETURN label",
                                                           database_=module_db.database).records}
        node_properties = {(label, r["propertyName"]) for r in driver.execute_query(
            "CALL db.schema.nodeTypeProperties() YIELD nodeLabels, propertyName RETURN nodeLabels, propertyName",
            database_=module_db.database).records for label in r["nodeLabels"]}
        edges = {(a, r["type"], b) for r in driver.execute_query(
            "MATCH (x)-[r]->(y) RETURN DISTINCT labels(x) AS a, type(r) AS type, labels(y) AS b",
            database_=module_db.database).records for a in r["a"] for b in r["b"]}
        rel_properties = {(r["relType"].strip(":`"), r["propertyName"]) for r in driver.execute_query(
            "CALL db.schema.relTypeProperties() YIELD relType, propertyName RETURN relType, propertyName",
            database_=module_db.database).records}
        for example in TEXT2CYPHER_EXAMPLES:  # each example's query runs and finds something on the demo
            query = example.split(" QUERY: ", 1)[1]
            assert driver.execute_query(query, database_=module_db.database).records, query
    assert count_tokens(TEXT2CYPHER_SCHEMA) < count_tokens(automatic)
    # Everything the schema names is in the demo's graph, as it says.
    properties, relationships = TEXT2CYPHER_SCHEMA.split("Relationship properties:\n", 1)
    relationship_properties, lines = relationships.split("The relationships:\n", 1)
    for label, body in re.findall(r"^(\w+) \{(.*)\}$", properties, flags=re.MULTILINE):
        assert label in labels
        for name in re.findall(r"(\w+): ", body):
            assert (label, name) in node_properties, (label, name)
    for rel_type, body in re.findall(r"^(\w+) \{(.*)\}$", relationship_properties, flags=re.MULTILINE):
        for name in re.findall(r"(\w+): ", body):
            assert (rel_type, name) in rel_properties, (rel_type, name)
    for a, rel_type, b in re.findall(r"^\(:(\w+)\)-\[:(\w+)\]->\(:(\w+)\)$", lines, flags=re.MULTILINE):
        assert (a, rel_type, b) in edges, (a, rel_type, b)
    assert re.search(r"^\(:__Entity__\)-\[\]->\(:__Entity__\)$", lines, flags=re.MULTILINE)


def test_text2cypher_retriever_sends_the_schema_and_runs_the_cypher(demo, module_db):
    from neo4j_graphrag.generation import GraphRAG
    from neo4j_graphrag.llm import OpenAILLM
    from neo4j_graphrag.retrievers import Text2CypherRetriever

    from tripartite.search.graphrag_schema import TEXT2CYPHER_EXAMPLES, TEXT2CYPHER_SCHEMA

    with CypherWritingOpenAI() as server, module_db.driver() as driver:
        llm = OpenAILLM("fake-chat", base_url=server.base_url, api_key="fake-key-for-the-fake-server")
        retriever = Text2CypherRetriever(driver, llm, neo4j_schema=TEXT2CYPHER_SCHEMA, examples=TEXT2CYPHER_EXAMPLES,
                                         neo4j_database=module_db.database)
        result = GraphRAG(retriever, llm).search(query_text="Which concepts does patient-b concern?",
                                                 return_context=True)
        concepts = driver.execute_query(PATIENT_B_CYPHER, database_=module_db.database).records
    prompt = sent(server, 0)[-1]["content"]
    schema = prompt.split("Schema:\n", 1)[1].split("\n\nExamples (optional):", 1)[0]
    assert schema == TEXT2CYPHER_SCHEMA
    assert [i.content for i in result.retriever_result.items] == [str(r) for r in concepts]
    answered = sent(server, 1)[-1]["content"]
    assert concepts and all(record["concept"] in answered for record in concepts)


def test_no_server_notification_reaches_the_callers_log(demo, module_db, settings_for, notifications):
    from tripartite.infra.embeddings import local_embedder, make_embedder
    from tripartite.infra.graph import Graph
    from tripartite.infra.llm import open_runner
    from tripartite.search.modes import object_prompt, offline_provider, question_analyzer, question_prompt
    from tripartite.search.retriever import TripartiteRetriever

    settings = settings_for(module_db)
    with plain_driver(module_db) as driver:
        # The logger is listening: a user's own query about a property nobody wrote is logged.
        driver.execute_query("MATCH (s:ScoreDistribution) RETURN s.never_written LIMIT 1", database_=module_db.database)
        assert any("never_written" in r.getMessage() for r in notifications())
        before = len(notifications())
        retriever = TripartiteRetriever(driver, module_db.database, settings=settings)
        retriever.search(query_text="patient-b")  # the stored selection's scores: `unbinned` not written here
        retriever.search(query_text=QUESTION, question_mode="tripartite")
        graph = Graph(driver, module_db.database)
        embedder, extracts = make_embedder(settings), local_embedder(settings)
        for mode in ("tripartite", "rag", "local", "global"):
            with open_runner(settings, offline_provider(mode, extracts), offline=True) as runner:
                object_prompt(graph, "patient-a", mode, embedder, runner)
        for mode in ("tripartite", "rag", "hybrid", "local", "global"):
            with open_runner(settings, offline_provider(mode, extracts), offline=True) as runner:
                analyzer = question_analyzer(graph, extracts, runner) if mode == "tripartite" else None
                question_prompt(graph, QUESTION, mode, embedder, runner, analyzer)
    assert [r.getMessage() for r in notifications()[before:]] == []
