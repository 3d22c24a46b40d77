"""A real Neo4j for the integration tests, never a mock.

Where it comes from, in order:
1. NEO4J_TEST_URI: a database given explicitly for testing; the tests may wipe it.
2. NEO4J_URI: a user's database. Used only while it is empty, and then only what the
   tests wrote is removed again; a database with data is never touched (tests skip).
3. testcontainers' Neo4j, when a Docker engine answers.
4. The project's own local server, started in a temporary home on free ports and stopped
   at the end of the session.
"""
from __future__ import annotations

import json
import logging
import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

import pytest
from neo4j import GraphDatabase

from tripartite.infra.config import Settings, load_settings

REPO = Path(__file__).resolve().parent.parent

# Retries and notifications are noise in test output; failures still raise.
logging.getLogger("neo4j").setLevel(logging.ERROR)


@dataclass(frozen=True)
class Neo4jTarget:
    uri: str
    user: str
    password: str
    database: str
    source: str
    disposable: bool  # may the tests wipe it?

    def driver(self):
        auth = (self.user, self.password) if self.password else None
        return GraphDatabase.driver(self.uri, auth=auth, notifications_min_severity="OFF")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _docker_answers() -> bool:
    try:
        import docker

        docker.from_env(timeout=3).ping()
        return True
    except Exception:
        return False


def _database_is_empty(target: Neo4jTarget) -> bool:
    with target.driver() as driver:
        nodes, _, _ = driver.execute_query("MATCH (n) RETURN count(n) AS n", database_=target.database)
        constraints, _, _ = driver.execute_query("SHOW CONSTRAINTS YIELD name RETURN count(name) AS n",
                                                 database_=target.database)
    return nodes[0]["n"] == 0 and constraints[0]["n"] == 0


def _wiped_at_the_end(target: Neo4jTarget):
    """A database the session does not own: tests empty it before they start, not after, so
    it is wiped once when the session ends."""
    try:
        yield target
    finally:
        wipe(target)


@pytest.fixture(scope="session")
def neo4j_target(tmp_path_factory):
    env = os.environ
    user = env.get("NEO4J_TEST_USER") or env.get("NEO4J_USER", "neo4j")
    if env.get("NEO4J_TEST_URI"):
        yield from _wiped_at_the_end(Neo4jTarget(
            env["NEO4J_TEST_URI"], user, env.get("NEO4J_TEST_PASSWORD", env.get("NEO4J_PASSWORD", "")),
            env.get("NEO4J_TEST_DATABASE", "neo4j"), "NEO4J_TEST_URI", disposable=True))
        return
    if env.get("NEO4J_URI"):
        target = Neo4jTarget(env["NEO4J_URI"], user, env.get("NEO4J_PASSWORD", ""),
                             env.get("NEO4J_DATABASE", "neo4j"), "NEO4J_URI", disposable=False)
        if not _database_is_empty(target):
            pytest.skip(f"NEO4J_URI={target.uri} holds data and the tests never wipe a user's database; "
                        "set NEO4J_TEST_URI to a disposable database (or unset NEO4J_URI to use the local server)")
        yield from _wiped_at_the_end(replace(target, disposable=True))  # it was empty: the tests remove what they wrote
        return
    if _docker_answers():
        from testcontainers.neo4j import Neo4jContainer

        password = "tripartite-test"
        container = Neo4jContainer("neo4j:5.26-community", password=password).with_env("NEO4J_PLUGINS", '["apoc"]')
        with container:
            yield Neo4jTarget(container.get_connection_url(), "neo4j", password, "neo4j", "testcontainers",
                              disposable=True)
        return
    from tripartite.infra.server.local import LocalServer

    settings = load_settings(env={k: v for k, v in env.items() if not k.startswith("NEO4J_")}, cwd=REPO)
    home = tmp_path_factory.mktemp("neo4j-home")
    server_settings = replace(settings.server, home=home, bolt_port=free_port(), http_port=free_port())
    server = LocalServer(server_settings, settings.cache_dir)
    status = server.start()
    try:
        yield Neo4jTarget(status.bolt_uri, "neo4j", "", "neo4j", f"local server in {home}", disposable=True)
    finally:
        server.stop()


def wipe(target: Neo4jTarget) -> None:
    """Remove every node, constraint and index (a disposable test database only)."""
    assert target.disposable, "refusing to wipe a database that was not given for testing"
    with target.driver() as driver:
        with driver.session(database=target.database) as session:  # IN TRANSACTIONS needs an auto-commit query
            session.run("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS").consume()
        names, _, _ = driver.execute_query("SHOW CONSTRAINTS YIELD name RETURN name", database_=target.database)
        for record in names:
            driver.execute_query("DROP CONSTRAINT $name IF EXISTS", name=record["name"], database_=target.database)
        names, _, _ = driver.execute_query("SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP' RETURN name",
                                           database_=target.database)
        for record in names:
            driver.execute_query("DROP INDEX $name IF EXISTS", name=record["name"], database_=target.database)


def _schema(session) -> frozenset:
    """The database's constraints and indexes, each as what defines it: (CONSTRAINT or INDEX,
    name, type, labels or types, properties)."""
    constraints = session.run("SHOW CONSTRAINTS YIELD name, type, labelsOrTypes, properties "
                              "RETURN 'CONSTRAINT' AS kind, name, type, labelsOrTypes AS on, properties").data()
    indexes = session.run("SHOW INDEXES YIELD name, type, labelsOrTypes, properties, owningConstraint "
                          "WHERE type <> 'LOOKUP' AND owningConstraint IS NULL "
                          "RETURN 'INDEX' AS kind, name, type, labelsOrTypes AS on, properties").data()
    return frozenset((r["kind"], r["name"], r["type"], tuple(r["on"] or ()), tuple(r["properties"] or ()))
                     for r in constraints + indexes)


_migrated_schema: dict[str, frozenset] = {}  # target uri -> what `migrate` makes of an empty database


def _migrated(target: Neo4jTarget) -> frozenset:
    """The schema a full `migrate` leaves (found once per session, on a wiped database)."""
    if target.uri not in _migrated_schema:
        from tripartite.infra import migrations
        from tripartite.infra.graph import Graph
        from tripartite.infra.paths import migrations_dir

        wipe(target)
        with target.driver() as driver:
            migrations.migrate(Graph(driver, target.database), migrations_dir())
            with driver.session(database=target.database) as session:
                _migrated_schema[target.uri] = _schema(session)
    return _migrated_schema[target.uri]


def empty(target: Neo4jTarget) -> None:
    """Empty the database for the next test. One that is fully migrated keeps the migrated
    schema and its migration history, and so is what `migrate` makes of an empty database
    (building its indexes again would cost seconds a test); anything else is wiped whole, as is
    a database that a test gave other indexes (they are dropped)."""
    assert target.disposable, "refusing to empty a database that was not given for testing"
    from tripartite.infra import migrations
    from tripartite.infra.graph import Graph
    from tripartite.infra.paths import migrations_dir

    expected = _migrated(target)
    with target.driver() as driver:
        states = migrations.status(Graph(driver, target.database), migrations_dir())
        with driver.session(database=target.database) as session:
            schema = _schema(session)
            if any(s.state not in ("applied", "optional", "superseded") for s in states) or not expected <= schema:
                wipe(target)
                return
            session.run("MATCH (n) WHERE NOT n:__TripartiteMigration "
                        "CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS").consume()
            for kind, name, *_ in schema - expected:  # kind is CONSTRAINT or INDEX
                session.run(f"DROP {kind} $name IF EXISTS", name=name).consume()


@pytest.fixture
def neo4j_db(neo4j_target, request):
    """An empty database for one test: migrated already (as `migrate` would leave it) unless the
    test is marked `bare`, which gets one with no schema and no migration history at all. The
    next test empties it again (and the session's end wipes it)."""
    if request.node.get_closest_marker("bare"):
        wipe(neo4j_target)
    else:
        empty(neo4j_target)
    yield neo4j_target


@pytest.fixture(scope="module")
def module_db(neo4j_target):
    """An empty, migrated database for the read-only tests of one module, built up once by them."""
    empty(neo4j_target)
    yield neo4j_target


@pytest.fixture
def driver(neo4j_db):
    with neo4j_db.driver() as drv:
        yield drv


@pytest.fixture
def settings_for(tmp_path):
    """Settings pointing at a test database, with no config file and a shared cache."""

    def make(target: Neo4jTarget, **extra_env: str) -> Settings:
        env = {
            "NEO4J_URI": target.uri,
            "NEO4J_USER": target.user,
            "NEO4J_PASSWORD": target.password,
            "NEO4J_DATABASE": target.database,
            "TRIPARTITE_SERVER_HOME": str(tmp_path / "server-home"),
            **extra_env,
        }
        if "TRIPARTITE_CACHE_DIR" in os.environ:
            env.setdefault("TRIPARTITE_CACHE_DIR", os.environ["TRIPARTITE_CACHE_DIR"])
        return load_settings(env=env, cwd=tmp_path)

    return make


def cli_env(target: Neo4jTarget, tmp_path: Path, **extra: str) -> dict[str, str]:
    """Environment for CliRunner: the test database and nothing from the user's config."""
    return {
        "NEO4J_URI": target.uri,
        "NEO4J_USER": target.user,
        "NEO4J_PASSWORD": target.password,
        "NEO4J_DATABASE": target.database,
        "TRIPARTITE_CONFIG": "",
        "TRIPARTITE_SERVER_HOME": str(tmp_path / "server-home"),
        "TRIPARTITE_LLM_CACHE": str(tmp_path / "llm-cache.sqlite"),  # no answers shared between tests
        **extra,
    }


def kill_when(command: list[str], env: dict[str, str], ready: Callable[[], bool], timeout: float = 120) -> None:
    """Start `command` and SIGKILL it once `ready()` holds (or it ended, or `timeout` passed)."""
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + timeout
    while not ready() and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()


def invoke(args: list[str], env: dict[str, str]):
    """The CLI run in-process with CliRunner."""
    from click.testing import CliRunner

    from tripartite.cli import cli

    return CliRunner().invoke(cli, args, env=env)


def ok(args: list[str], env: dict[str, str]) -> str:
    """The CLI's output, which must have succeeded."""
    result = invoke(args, env)
    assert result.exit_code == 0, (args, result.output)
    return result.output


def as_json(args: list[str], env: dict[str, str]) -> dict:
    """The command's `--format json` output, parsed."""
    return json.loads(ok([*args, "--format", "json"], env))


def load_sample(env: dict[str, str], *then: list[str]) -> dict[str, str]:
    """Migrate, ingest the sample guidelines, load the cardiology ontology and add the sample
    anamneses through the CLI, then run the commands in `then`; each must succeed."""
    from click.testing import CliRunner

    from tripartite.cli import cli
    from tripartite.infra.paths import samples_dir

    setup = (["migrate"], ["ingest", str(samples_dir() / "guidelines")], ["ontology", "load", "cardiology"],
             ["objects", "add", str(samples_dir() / "objects"), "--kind", "anamnesis"])
    for args in (*setup, *then):
        result = CliRunner().invoke(cli, args, env=env)
        assert result.exit_code == 0, (args, result.output)
    return env


def ingest_documents(target: Neo4jTarget, tmp_path: Path, files: dict[str, str], *then: list[str]) -> dict[str, str]:
    """A CLI environment whose database holds these Markdown documents (file name -> text), migrated
    and ingested, then the commands in `then` run; each must succeed."""
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    env = cli_env(target, tmp_path)
    for args in (["migrate"], ["ingest", str(folder)], *then):
        ok(args, env)
    return env


@pytest.fixture
def loaded(neo4j_db, tmp_path):
    """CLI environment for a test database holding the sample, not yet analysed."""
    return load_sample(cli_env(neo4j_db, tmp_path))


@pytest.fixture
def migrated_env(neo4j_db, tmp_path):
    """CLI environment for an empty, migrated test database."""
    from click.testing import CliRunner

    from tripartite.cli import cli

    env = cli_env(neo4j_db, tmp_path)
    result = CliRunner().invoke(cli, ["migrate"], env=env)
    assert result.exit_code == 0, result.output
    return env


def migrations_before(version: str, tmp_path: Path) -> Path:
    """A folder of the project's versioned migrations older than `version`: a graph made by an
    earlier release, for a migration's repair to be tested on."""
    from tripartite.infra.paths import migrations_dir

    older = tmp_path / "older"
    older.mkdir()
    for path in sorted(migrations_dir().glob("V*.cypher")):
        if path.name < version:
            (older / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    return older
