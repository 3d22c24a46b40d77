"""Routed connections: every script that only reads runs as a read transaction, so neo4j://
and neo4j+s:// URIs to a cluster send it to a secondary; the whole sample pipeline runs
through the neo4j:// scheme against the test server (a one-member routing table)."""
import json
import re
from urllib.parse import urlsplit

import neo4j
import pytest
from click.testing import CliRunner

from conftest import cli_env, load_sample
from tripartite.cli import cli
from tripartite.infra import cypher
from tripartite.infra.graph import Graph
from tripartite.infra.paths import cypher_dir

WRITES = re.compile(r"\b(CREATE|MERGE|SET|DELETE|REMOVE|DROP|FOREACH|LOAD\s+CSV)\b|IN\s+(\$\w+\s+|\d+\s+)?"
                    r"(CONCURRENT\s+)?TRANSACTIONS|\b(gds\.\w+(\.\w+)*\.(write|mutate|drop)|gds\.graph\.project|"
                    r"db\.create\.\w+|apoc\.custom\.\w+|tripartite\.selection\.(score|distribution|classify))\s*\(",
                    re.IGNORECASE)  # the last: the procedure plugin's write procedures


def code_of(statement: str) -> str:
    """The statement without comments and string literals (a word in a string is not a clause)."""
    text = re.sub(r"//[^\n]*|/\*.*?\*/", " ", statement, flags=re.DOTALL)
    return re.sub(r"'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\"", "''", text)


def scripts():
    return sorted(str(p.relative_to(cypher_dir()).with_suffix("")) for p in cypher_dir().rglob("*.cypher")
                  if p.parent.name != "migrations")


@pytest.mark.parametrize("name", scripts())
def test_a_script_is_marked_read_exactly_when_it_writes_nothing(name):
    script = cypher.script(name)
    writes = [s.line for s in script.statements if WRITES.search(code_of(s.text))]
    if script.mode == "read":
        assert not writes, f"cypher/{name}.cypher is marked read but writes at line {writes[0]}"
    else:
        assert writes, f"cypher/{name}.cypher is marked {script.mode} but only reads: mark it `// read:`"


def routed(uri: str) -> str:
    parts = urlsplit(uri)
    scheme = {"bolt": "neo4j", "bolt+s": "neo4j+s", "bolt+ssc": "neo4j+ssc"}.get(parts.scheme, parts.scheme)
    return parts._replace(scheme=scheme).geturl()


@pytest.mark.neo4j
def test_a_read_script_runs_in_a_read_transaction(neo4j_db, tmp_path, monkeypatch):
    # A script marked read that writes is refused by the server: the access mode is really sent.
    (tmp_path / "probe").mkdir()
    (tmp_path / "probe" / "sneaky.cypher").write_text("// read: a script that claims to read\nCREATE (:Sneaky)")
    (tmp_path / "probe" / "honest.cypher").write_text("// write: a script that says it writes\nCREATE (:Honest)")
    monkeypatch.setattr(cypher, "cypher_dir", lambda: tmp_path)
    cypher.script.cache_clear()
    try:
        with neo4j.GraphDatabase.driver(routed(neo4j_db.uri), auth=(neo4j_db.user, neo4j_db.password) if neo4j_db.password else None) as driver:
            graph = Graph(driver, neo4j_db.database)
            with pytest.raises(neo4j.exceptions.ClientError, match="(?i)access mode|read"):
                graph.run("probe/sneaky")
            graph.run("probe/honest")
            records, _, _ = driver.execute_query("MATCH (n) WHERE n:Sneaky OR n:Honest RETURN labels(n)[0] AS label",
                                                 database_=neo4j_db.database)
            assert [r["label"] for r in records] == ["Honest"]
    finally:
        cypher.script.cache_clear()


@pytest.mark.neo4j
def test_the_sample_pipeline_through_the_routing_scheme(neo4j_db, tmp_path):
    env = {**cli_env(neo4j_db, tmp_path), "NEO4J_URI": routed(neo4j_db.uri)}
    assert env["NEO4J_URI"].startswith("neo4j")
    load_sample(env)

    def run(*args):
        result = CliRunner().invoke(cli, list(args), env=env)
        assert result.exit_code == 0, (args, result.output)
        return result.output

    run("analyze")
    run("select")
    prompt = json.loads(run("prompt", "patient-b", "--format", "json"))
    assert any(c["evidence"] for c in prompt["concepts"])
    assert json.loads(run("rag-prompt", "patient-b", "--top-k", "3", "--format", "json"))["chunks"]
    assert len(json.loads(run("documents", "list", "--json"))) == 3
    assert len(json.loads(run("objects", "list", "--json"))) == 3
    doctor = {c["name"]: c for c in json.loads(run("doctor", "--json"))}
    assert doctor["URI routes"]["detail"].startswith("yes: neo4j")


def test_aura_is_recognised_by_its_host():
    from tripartite.doctor import is_aura

    assert is_aura("neo4j+s://a1b2c3d4.databases.neo4j.io")
    assert is_aura("neo4j+s://neo4j:secret@a1b2c3d4.databases.neo4j.io:7687")
    assert not is_aura("bolt://127.0.0.1:7687") and not is_aura("neo4j://databases.neo4j.io.example.org")
