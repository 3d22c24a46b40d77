"""The CLI end to end through click's CliRunner, against a real Neo4j."""
import json

import pytest
from click.testing import CliRunner

from conftest import cli_env
from tripartite.cli import cli
from tripartite.infra.graph import Graph
from tripartite.infra.server.plugin import source_hash
from tripartite.selection.engine import plugin_version

pytestmark = pytest.mark.neo4j


def invoke(args, env):
    return CliRunner().invoke(cli, args, env=env)


@pytest.mark.bare
def test_migrate_status_then_apply_then_nothing(neo4j_db, tmp_path):
    env = cli_env(neo4j_db, tmp_path)
    before = invoke(["migrate", "--status", "--json"], env)
    assert before.exit_code == 0, before.output
    states = json.loads(before.output)
    assert states and all(s["state"] == "pending" for s in states)

    applied = invoke(["migrate"], env)
    assert applied.exit_code == 0, applied.output
    # R__browser_procedures needs APOC Extended; a server without it skips that one (and says so).
    assert applied.output.count("applied ") + applied.output.count("skipped ") == len(states)

    again = invoke(["migrate"], env)
    assert again.exit_code == 0 and "up to date" in again.output

    after = invoke(["migrate", "--status"], env)
    assert after.output.count(" applied ") + after.output.count(" optional ") == len(states)
    assert "pending" not in after.output


def test_doctor_passes_on_a_migrated_database(neo4j_db, tmp_path):
    env = cli_env(neo4j_db, tmp_path)
    assert invoke(["migrate"], env).exit_code == 0
    result = invoke(["doctor", "--json"], env)
    assert result.exit_code == 0, result.output
    checks = {c["name"]: c for c in json.loads(result.output)}
    assert checks["Neo4j reachable"]["ok"]
    assert checks["Neo4j version >= 5.23"]["ok"] and checks["Neo4j version >= 5.23"]["detail"].startswith("5.")
    assert checks["APOC core"]["ok"] and checks["APOC Extended"]["ok"] and checks["Graph Data Science"]["ok"]
    assert checks["migrations current"]["ok"]
    assert checks["embedding model loadable"]["ok"] and "896 dimensions" in checks["embedding model loadable"]["detail"]
    assert checks["LLM endpoint"]["ok"]
    assert checks["triplet graph"]["ok"] and checks["triplet graph"]["detail"].startswith("not built")
    # The selection store's version, and the path its steps take on this server (and why).
    selection = checks["selection"]
    assert selection["ok"] and selection["detail"].startswith("store version 2")
    with neo4j_db.driver() as driver:
        with_plugin = plugin_version(Graph(driver, neo4j_db.database)) == source_hash()
    assert ("the procedure plugin" if with_plugin else "the Cypher scripts") in selection["detail"]
    forced = invoke(["doctor", "--json"], {**env, "TRIPARTITE_SELECT_ENGINE": "cypher"})
    detail = {c["name"]: c for c in json.loads(forced.output)}["selection"]["detail"]
    assert "the Cypher scripts, as [selection] engine asks" in detail


@pytest.mark.bare
def test_doctor_flags_pending_migrations(neo4j_db, tmp_path):
    result = invoke(["doctor"], cli_env(neo4j_db, tmp_path))
    assert result.exit_code == 1
    assert "[FAIL] migrations current" in result.output and "run `tripartite migrate`" in result.output


@pytest.mark.bare
def test_commands_refuse_a_database_without_the_schema_and_write_nothing(neo4j_db, tmp_path):
    """Without `migrate` there are no uniqueness constraints and no full-text index: writing
    would leave a graph that later fails, so every command but migrate says so first."""
    from tripartite.infra.paths import samples_dir

    env = cli_env(neo4j_db, tmp_path)
    for args in (["ingest", str(samples_dir() / "guidelines")], ["search", "hybrid", "What lowers blood pressure?"],
                 ["objects", "list"]):
        result = invoke(args, env)
        assert result.exit_code == 1, (args, result.output)
        errors = [line for line in result.output.splitlines() if line.startswith("error:")]
        assert len(errors) == 1 and "has no schema yet" in errors[0] and "run `tripartite migrate` first" in errors[0]
    with neo4j_db.driver() as driver:
        assert driver.execute_query("MATCH (n) RETURN count(n) AS n").records[0]["n"] == 0
    assert invoke(["migrate"], env).exit_code == 0
    assert invoke(["ingest", str(samples_dir() / "guidelines")], env).exit_code == 0


def test_unreachable_neo4j_is_one_line(tmp_path):
    from conftest import free_port

    env = {"NEO4J_URI": f"bolt://127.0.0.1:{free_port()}", "TRIPARTITE_CONFIG": "",
                                 "NEO4J_PASSWORD": "pw-not-shown"}
    result = invoke(["migrate"], env)
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: Neo4j is not reachable at bolt://127.0.0.1:")
    assert "check that it runs" in lines[0]
    doctor = invoke(["doctor"], env)
    assert doctor.exit_code == 1 and "[FAIL] Neo4j reachable" in doctor.output
    assert "pw-not-shown" not in doctor.output + result.output
