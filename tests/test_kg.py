"""The triplet graph: extraction (offline and through an OpenAI-compatible server), its
incremental runs, the graph's shape (neo4j-graphrag's conventions, the ontology joined), Leiden
communities with reports, and neo4j-graphrag's retrievers on it."""
import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from conftest import cli_env, ingest_documents, kill_when
from fake_openai import FakeOpenAI
from tripartite.cli import cli
from tripartite.infra.llm.tasks import InvalidAnswer
from tripartite.infra.paths import samples_dir
from tripartite.kg.schema import RESERVED_LABELS, entity_key, normal_name, parse_triplets, relation_type, type_label

pytestmark = pytest.mark.neo4j


def invoke(args, env):
    return CliRunner().invoke(cli, args, env=env)


def rows(driver, query, **params):
    records, _, _ = driver.execute_query(query, params)
    return [dict(r) for r in records]


def one(driver, query, **params):
    return rows(driver, query, **params)[0]


def lexical(driver):
    return one(driver, """RETURN COUNT { (:Document) } AS documents, COUNT { (:Section) } AS sections,
        COUNT { (:Chunk) } AS chunks, COUNT { ()-[:NEXT_CHUNK]->() } AS next, COUNT { ()-[:HAS_CHUNK]->() } AS has""")


@pytest.fixture
def ingested(neo4j_db, tmp_path):
    env = cli_env(neo4j_db, tmp_path)
    for args in (["migrate"], ["ingest", str(samples_dir() / "guidelines")], ["ontology", "load", "cardiology"]):
        result = invoke(args, env)
        assert result.exit_code == 0, (args, result.output)
    return env


def test_names_and_types_normalise():
    assert normal_name("  Atrial  Fibrillation. ") == "atrial fibrillation"
    assert entity_key("Neo4j", "graph database") == entity_key("neo4j", "Graph Database") == "neo4j|GraphDatabase"
    assert type_label("") == "Thing" and relation_type("works with") == "WORKS_WITH"
    # A type named like another part's label never becomes that label (an entity typed "Concept"
    # would pass for an ontology concept, and the analysis would read it).
    assert {type_label(label) for label in RESERVED_LABELS} == {f"{label}Entity" for label in RESERVED_LABELS}
    assert type_label("concept") == "ConceptEntity" and type_label("concept class") == "ConceptClassEntity"
    # Nor does a relation take another part's relationship type ("mentioned in" is the analysis' edge).
    assert relation_type("mentioned in") == "MENTIONED_IN_RELATION" and relation_type("Parent") == "PARENT_RELATION"
    assert relation_type("concerns") == "CONCERNS_RELATION" and relation_type("concerning") == "CONCERNING"
    parsed = parse_triplets('{"entities": [{"name": "A", "type": "T"}, {"name": "B"}], '
                            '"relations": [{"source": "a", "target": "B", "type": "uses"}]}')
    assert [e["type"] for e in parsed["entities"]] == ["T", "Thing"] and parsed["relations"][0]["source"] == "a"
    with pytest.raises(InvalidAnswer, match="not among the entities"):
        parse_triplets('{"entities": [{"name": "A"}], "relations": [{"source": "A", "target": "C"}]}')


def test_offline_extraction_builds_the_triplet_graph_beside_the_lexical_one(ingested, driver):
    before = lexical(driver)
    dry = json.loads(invoke(["kg", "extract", "--dry-run", "--json"], ingested).output)
    assert dry["calls"] > 0 and dry["prompt_tokens"] > dry["calls"] * 50
    result = invoke(["kg", "extract", "--json"], ingested)
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["stages"]["kg"]["tasks"] == dry["calls"]
    assert lexical(driver) == before  # the lexical graph is unchanged
    # neo4j-graphrag's conventions: __Entity__ plus the type as a label, FROM_CHUNK to chunks.
    entities = rows(driver, "MATCH (e:__Entity__) RETURN e.key AS key, labels(e) AS labels, e.type AS type, "
                            "COUNT { (e)-[:FROM_CHUNK]->(:Chunk) } AS chunks, e.description AS description")
    assert entities and all(e["type"] in e["labels"] and e["chunks"] > 0 and e["description"] for e in entities)
    keys = [e["key"] for e in entities]
    assert len(keys) == len(set(keys))  # one node per normalised name and type
    shared = one(driver, "MATCH (e:__Entity__) WITH e, COUNT { (e)-[:FROM_CHUNK]->() } AS n RETURN max(n) AS n")
    assert shared["n"] > 1  # an entity named in several chunks is one node
    relation = one(driver, """MATCH (:__Entity__)-[r]->(:__Entity__) WHERE r.chunks IS NOT NULL
        RETURN max(r.weight) AS weight, min(size(r.chunks) = r.weight) AS consistent""")
    assert relation["weight"] >= 1 and relation["consistent"]
    # The ontology joined: entities named as a concept (or one of its synonyms) are that concept.
    linked = rows(driver, "MATCH (e:__Entity__)-[:IS_CONCEPT]->(c:Concept) RETURN e.name AS e, c.name AS c")
    assert any(x["c"] == "Atrial fibrillation" for x in linked)
    # The run says where the graph stands, as `kg status` does.
    assert report["graph"]["extracted"] == report["graph"]["chunks"] and report["graph"]["entities"] == len(entities)
    # Nothing left to do: no call, no change, and no chunk said to be read again.
    again = json.loads(invoke(["kg", "extract", "--dry-run", "--json"], ingested).output)
    assert again["calls"] == 0
    rerun = invoke(["kg", "extract"], ingested)
    assert rerun.exit_code == 0 and "too little text" not in rerun.output
    assert f"{report['graph']['chunks']} of {report['graph']['chunks']} chunks extracted; {len(entities)} entities" \
        in rerun.output


def test_a_chunk_too_short_to_extract_is_said_once(neo4j_db, tmp_path):
    env = ingest_documents(neo4j_db, tmp_path, {"short.md": "# Heart\n\n## Note\n\nOk.\n\n## Care\n\nWarfarin lowers "
                                                            "the risk of stroke in atrial fibrillation, and beta "
                                                            "blockers slow the heart rate.\n"})
    first = invoke(["kg", "extract", "--offline"], env)
    assert first.exit_code == 0 and "1 chunk with too little text to extract from: recorded as read" in first.output
    second = invoke(["kg", "extract", "--offline"], env)
    assert second.exit_code == 0 and "too little text" not in second.output


def test_a_changed_document_redoes_only_its_chunks(ingested, driver, tmp_path):
    assert invoke(["kg", "extract"], ingested).exit_code == 0
    changed = tmp_path / "hypertension.md"
    changed.write_text((samples_dir() / "guidelines" / "hypertension.md").read_text()
                       + "\n\n## Follow-up\n\nCheck blood pressure with Losartan monthly at the Mayo Clinic.\n")
    assert invoke(["ingest", str(changed), "--replace"], ingested).exit_code == 0
    pending = json.loads(invoke(["kg", "extract", "--dry-run", "--json"], ingested).output)
    count = one(driver, "MATCH (t:Chunk {document_id: 'hypertension'}) WHERE t.kg_version IS NULL RETURN count(t) AS n")
    assert 0 < pending["chunks"] == count["n"]
    assert invoke(["kg", "extract"], ingested).exit_code == 0
    orphans = one(driver, "MATCH (e:__Entity__) WHERE NOT (e)-[:FROM_CHUNK]->(:Chunk) RETURN count(e) AS n")
    dangling = one(driver, """MATCH (:__Entity__)-[r]->(:__Entity__) WHERE r.chunks IS NOT NULL
        AND any(id IN r.chunks WHERE NOT EXISTS { MATCH (:Chunk {id: id}) }) RETURN count(r) AS n""")
    assert orphans["n"] == 0 and dangling["n"] == 0


def test_extraction_through_an_openai_compatible_server(ingested, driver):
    with FakeOpenAI() as server:
        env = {**ingested, "OPENAI_BASE_URL": server.base_url, "TRIPARTITE_LLM_MODEL": "fake-chat",
               "TRIPARTITE_LLM_BACKOFF": "0.01"}
        dry = json.loads(invoke(["kg", "extract", "--dry-run", "--json"], env).output)
        server.script = ["malformed", "429"]
        result = invoke(["kg", "extract", "--json"], env)
        assert result.exit_code == 0, result.output
        report = json.loads(result.output)
        stats = report["stages"]["kg"]
        assert stats["repairs"] == 1 and stats["retries"] == 1 and stats["tasks"] == dry["calls"]
        prompts = [r["body"]["messages"][0]["content"] for r in server.chat_requests()
                   if r["body"]["messages"][0]["content"].startswith("Extract the entities")]
        assert any("Names already used in similar passages" in p for p in prompts)
        sent = sum(1 for r in server.chat_requests())
        assert sent == report["calls"] and report["prompt_tokens"] > 0
        names = {r["n"] for r in rows(driver, "MATCH (e:__Entity__) RETURN e.name AS n")}
        assert "Anticoagulants" in names or len(names) > 5
        # Cached: a second graph from the same prompts costs nothing.
        driver.execute_query("MATCH (e:__Entity__) DETACH DELETE e")
        driver.execute_query("MATCH (t:Chunk) REMOVE t.kg_version")
        again = json.loads(invoke(["kg", "extract", "--json"], env).output)
        assert again["calls"] == 0 and again["cache_hits"] == stats["tasks"] and len(server.chat_requests()) == sent


def test_a_killed_extraction_resumes_without_repaying(ingested, driver):
    with FakeOpenAI(delay=0.15) as server:
        env = {**os.environ, **ingested, "OPENAI_BASE_URL": server.base_url, "TRIPARTITE_LLM_MODEL": "fake-chat"}
        env.pop("TRIPARTITE_CONFIG")
        command = [sys.executable, "-m", "tripartite", "kg", "extract", "--concurrency", "1", "--json"]
        kill_when(command, env, lambda: len(server.chat_requests()) >= 8)
        done = one(driver, "MATCH (t:Chunk) WHERE t.kg_version IS NOT NULL RETURN count(t) AS n")["n"]
        assert 0 < done < one(driver, "MATCH (t:Chunk) RETURN count(t) AS n")["n"]
        finished = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
        assert finished.returncode == 0, finished.stderr
        prompts = [r["body"]["messages"][0]["content"] for r in server.chat_requests()]
    assert len(prompts) - len(set(prompts)) <= 1  # only the call in flight at the kill
    assert json.loads(invoke(["kg", "extract", "--dry-run", "--json"], ingested).output)["calls"] == 0


def test_communities_with_reports_and_incremental_reruns(ingested, driver, tmp_path):
    assert invoke(["kg", "extract"], ingested).exit_code == 0
    dry = json.loads(invoke(["kg", "communities", "--dry-run", "--json", "--min-size", "3"], ingested).output)
    assert set(dry) >= {"calls", "prompt_tokens"} and dry["communities"] > 0
    result = invoke(["kg", "communities", "--json", "--min-size", "3"], ingested)
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["reports"] == dry["calls"] - report["summaries"]
    shape = one(driver, """MATCH (c:Community) RETURN count(c) AS n, min(c.size) AS smallest,
        COUNT { (:__Entity__)-[:IN_COMMUNITY]->(:Community) } AS members,
        COUNT { (:Community)-[:PARENT]->(:Community) } AS parents,
        COUNT { (c2:Community) WHERE c2.summary IS NOT NULL AND c2.embedding IS NOT NULL AND c2.title IS NOT NULL } AS reported""")
    assert shape["n"] == dry["communities"] and shape["smallest"] >= 2 and shape["members"] > 0
    assert shape["reported"] == report["reports"]
    # A child is always smaller than its parent, one level up or more.
    assert one(driver, """MATCH (c:Community)-[:PARENT]->(p:Community)
        RETURN count(*) AS n, min(p.size - c.size) AS growth, min(p.level - c.level) AS up""")["growth"] > 0
    # The Browser's view of it.
    assert rows(driver, "MATCH p = (:Community)<-[:IN_COMMUNITY]-(:__Entity__)-[:FROM_CHUNK]->(:Chunk) RETURN p LIMIT 50")
    # Nothing changed: the same communities, no new report.
    again = json.loads(invoke(["kg", "communities", "--dry-run", "--json", "--min-size", "3"], ingested).output)
    assert again["calls"] == 0 and again["communities"] == dry["communities"]
    # A new document: only communities whose members changed are reported again.
    extra = tmp_path / "extra.md"
    extra.write_text("# Extra\n\nThe Framingham Heart Study followed Framingham residents for decades.\n\n"
                     "The Framingham Heart Study found that Smoking and Obesity raise the risk.\n")
    assert invoke(["ingest", str(extra)], ingested).exit_code == 0
    assert invoke(["kg", "extract"], ingested).exit_code == 0
    later = json.loads(invoke(["kg", "communities", "--dry-run", "--json", "--min-size", "3"], ingested).output)
    assert later["calls"] < dry["calls"]


def test_vector_cypher_retriever_walks_from_chunks_to_their_entities(ingested, driver, neo4j_db):
    from neo4j_graphrag.retrievers import VectorCypherRetriever

    from tripartite.infra.config import load_settings
    from tripartite.infra.embeddings import as_graphrag_embedder, make_embedder
    from tripartite.search.vector import quiet_graphrag_id_deprecation

    assert invoke(["kg", "extract"], ingested).exit_code == 0
    embedder = make_embedder(load_settings(env={}))
    retriever = VectorCypherRetriever(
        driver, "chunk_embedding", embedder=as_graphrag_embedder(embedder), neo4j_database=neo4j_db.database,
        retrieval_query="MATCH (node)<-[:FROM_CHUNK]-(e:__Entity__) "
                        "RETURN node.text AS text, score, collect(e.name) AS entities")
    with quiet_graphrag_id_deprecation():  # we read no default id column (see tripartite/search/vector.py)
        found = retriever.search(query_text="blood thinners lower the risk of stroke in atrial fibrillation", top_k=3)
    assert found.items and all("entities" in item.content for item in found.items)
    assert any("Atrial fibrillation" in item.content or "Anticoagulants" in item.content for item in found.items)
