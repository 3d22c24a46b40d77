"""Lifecycle of the no-Docker local server: start, status, restart with data kept, stop,
and the failures a user meets (port taken, no Java 17, a start that fails)."""
import json
import os
from pathlib import Path
import signal
import socket
import subprocess
import sys
import time
from dataclasses import replace

import pytest
from click.testing import CliRunner
from neo4j import GraphDatabase

from conftest import REPO, free_port
from tripartite.cli import cli
from tripartite.infra.config import load_settings
from tripartite.infra.errors import ServerError
from tripartite.infra.graph import Graph
from tripartite.infra.server import local as local_module
from tripartite.infra.server import plugin
from tripartite.infra.server.local import LocalServer, port_in_use
from tripartite.selection.engine import choose

pytestmark = pytest.mark.server


@pytest.fixture
def server_settings(tmp_path):
    settings = load_settings(env={}, cwd=REPO)
    return settings, replace(settings.server, home=tmp_path / "home", bolt_port=free_port(), http_port=free_port())


def query(bolt_uri: str, cypher: str, **params):
    with GraphDatabase.driver(bolt_uri, auth=None, notifications_min_severity="OFF") as driver:
        records, _, _ = driver.execute_query(cypher, params)
    return records


def test_start_status_a_kill_mid_ingest_restart_stop(server_settings, tmp_path, monkeypatch):
    """One second server's life (each start costs seconds, so one test walks it all): start,
    status, a second start, data kept across a SIGKILL in the middle of an ingest (which ends
    with one line, and leaves only whole documents), a restart whose procedure plugin does not
    load (the server starts without it), stop."""
    settings, server = server_settings
    local = LocalServer(server, settings.cache_dir)
    assert not local.status().running
    env = {**os.environ, "TRIPARTITE_SERVER_HOME": str(server.home), "TRIPARTITE_BOLT_PORT": str(server.bolt_port),
           "TRIPARTITE_HTTP_PORT": str(server.http_port), "TRIPARTITE_CONFIG": ""}
    starts = [subprocess.Popen([sys.executable, "-m", "tripartite", "server", "start", "--json"], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    try:
        outputs = [run.communicate(timeout=300) for run in starts]  # two at once: one starts, one waits
        assert [run.returncode for run in starts] == [0, 0], outputs
        assert len({json.loads(out)["pid"] for out, _ in outputs}) == 1
        status = local.status()
        assert status.running and status.pid
        assert status.bolt_uri == f"bolt://127.0.0.1:{server.bolt_port}"
        assert status.browser_url == f"http://127.0.0.1:{server.http_port}/browser/"
        assert query(status.bolt_uri, "RETURN apoc.version() AS v")[0]["v"].startswith("5.26")
        assert local.start().pid == status.pid  # a second start finds it running
        from tripartite.cli.evaluation import where_it_lives  # the demo's last lines, for this server
        said = "\n".join(where_it_lives(load_settings(env={k: env[k] for k in env if k.startswith("TRIPARTITE_")},
                                                      cwd=tmp_path)))
        assert f"still running (pid {status.pid})" in said and f"{server.home}/data" in said
        assert "tripartite server stop" in said and "tripartite server remove" in said and "tripartite ui" in said
        query(status.bolt_uri, "CREATE (:Kept {name: $name})", name="survives restarts")

        corpus = tmp_path / "corpus"
        corpus.mkdir()
        paragraph = "Atrial fibrillation raises the risk of stroke, and blood thinners lower it. " * 12
        for n in range(200):  # two transactions of documents (5,000 chunks each): the kill lands in the second
            (corpus / f"doc-{n:03d}.md").write_text(f"# Document {n}\n\n" + f"{paragraph}\n\n" * 40)
        env = {**os.environ, "NEO4J_URI": status.bolt_uri, "TRIPARTITE_CONFIG": "", "TRIPARTITE_SERVER_HOME": str(server.home)}
        subprocess.run([sys.executable, "-m", "tripartite", "migrate"], env=env, check=True, capture_output=True)
        ingest = subprocess.Popen([sys.executable, "-m", "tripartite", "ingest", str(corpus), "--no-embed"],
                                  env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and ingest.poll() is None:
            if query(status.bolt_uri, "RETURN COUNT { (:Document) } AS n")[0]["n"] >= 2:
                break
            time.sleep(0.05)
        os.kill(status.pid, signal.SIGKILL)
        output = ingest.communicate(timeout=120)[0]
        assert ingest.returncode == 1, output
        errors = [line for line in output.splitlines() if line.startswith("error: ")]
        assert len(errors) == 1 and "lost the connection to Neo4j" in errors[0] and "Traceback" not in output

        local.stop()  # tidies up after the kill
        assert not local.status().running and not port_in_use(server.bolt_port)
        # The restart brings a procedure plugin that does not load: one line, and the server
        # runs without it, its selection on the Cypher scripts.
        broken_jar = tmp_path / "tripartite-procedures-broken.jar"
        broken_jar.write_bytes(b"not a jar")
        said_lines: list[str] = []
        monkeypatch.setattr(local_module, "build_plugin", lambda cache, version, say: broken_jar)
        restarted = LocalServer(server, settings.cache_dir, say=said_lines.append).start()
        failed = [line for line in said_lines if "did not start with the procedure plugin" in line]
        assert len(failed) == 1 and "select runs the Cypher scripts" in failed[0], said_lines
        with GraphDatabase.driver(restarted.bolt_uri, auth=None) as driver:
            assert choose(Graph(driver, "neo4j")).name == "cypher"
        assert query(restarted.bolt_uri, "MATCH (k:Kept) RETURN k.name AS n")[0]["n"] == "survives restarts"
        broken = query(restarted.bolt_uri, """MATCH (d:Document) WHERE d.chunk_count <> COUNT { (:Chunk)-[:FROM_DOCUMENT]->(d) }
                                              RETURN count(d) AS n""")
        orphans = query(restarted.bolt_uri, "MATCH (c:Chunk) WHERE NOT (c)-[:FROM_DOCUMENT]->() RETURN count(c) AS n")
        assert broken[0]["n"] == 0 and orphans[0]["n"] == 0  # every stored document is whole
        some = sorted(map(str, corpus.glob("*.md")))[:5]  # the server takes documents again (the first ones were stored)
        again = subprocess.run([sys.executable, "-m", "tripartite", "ingest", *some, "--no-embed"], env=env,
                               capture_output=True, text=True)
        assert again.returncode == 0, again.stdout + again.stderr
        assert local.stop()
        assert not local.status().running and not port_in_use(server.bolt_port)
    finally:
        local.stop()
    assert not local.stop()  # stopping a stopped server is not an error
    unasked = subprocess.run([sys.executable, "-m", "tripartite", "server", "remove"], env=env, stdin=subprocess.DEVNULL,
                             capture_output=True, text=True)  # a script: no terminal to ask on, so it refuses
    assert unasked.returncode == 1 and "with no terminal to ask, pass --yes" in unasked.stderr
    assert server.home.exists()
    removed = subprocess.run([sys.executable, "-m", "tripartite", "server", "remove", "--yes"], env=env,
                             capture_output=True, text=True)
    assert removed.returncode == 0 and f"removed {server.home}" in removed.stdout, removed.stderr
    assert not server.home.exists()
    logs = subprocess.run([sys.executable, "-m", "tripartite", "server", "logs"], env=env, capture_output=True, text=True)
    assert logs.returncode == 1 and logs.stderr.startswith("error: no server log at ")


def test_taken_port_is_a_one_line_error(server_settings):
    settings, server = server_settings
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", server.bolt_port))
        squatter.listen()
        with pytest.raises(ServerError, match=f"port {server.bolt_port} \\(Bolt\\) on 127.0.0.1 is taken") as info:
            LocalServer(server, settings.cache_dir).start()
    assert "\n" not in str(info.value)
    assert not (server.home / "run" / "tripartite.pid").exists()


def test_missing_java_17_is_a_one_line_error(server_settings, tmp_path):
    settings, server = server_settings
    fake_java = tmp_path / "java"
    fake_java.write_text('#!/bin/sh\necho \'openjdk version "11.0.2" 2019-01-15\' >&2\n')
    fake_java.chmod(0o755)
    with pytest.raises(ServerError, match="is not Java 17 or 21") as info:
        LocalServer(replace(server, java=str(fake_java)), settings.cache_dir).start()
    assert "Java 11" in str(info.value)


def test_failed_start_reports_the_log_tail(server_settings):
    settings, server = server_settings
    broken = replace(server, pagecache="plenty")  # Neo4j refuses this setting and exits
    with pytest.raises(ServerError, match="Neo4j exited during start") as info:
        LocalServer(broken, settings.cache_dir).start()
    assert "plenty" in info.value.log_tail
    assert not LocalServer(broken, settings.cache_dir).status().running


def test_cli_start_failure_prints_error_and_log_tail(server_settings):
    settings, server = server_settings
    env = {"TRIPARTITE_SERVER_HOME": str(server.home), "TRIPARTITE_BOLT_PORT": str(server.bolt_port),
           "TRIPARTITE_HTTP_PORT": str(server.http_port), "TRIPARTITE_CONFIG": "", "TRIPARTITE_JAVA": "/nonexistent/java"}
    result = CliRunner().invoke(cli, ["server", "start"], env=env)
    assert result.exit_code == 1
    assert result.output.startswith("error: TRIPARTITE_JAVA=/nonexistent/java is not Java 17 or 21")
    status = CliRunner().invoke(cli, ["server", "status", "--json"], env=env)
    assert status.exit_code == 3
    assert json.loads(status.output)["running"] is False


FAKE_MVN = r'''#!/usr/bin/env python3
"""Stands in for Maven on PATH: writes a jar per copy, slowly, and logs each call."""
import os, sys, time
from pathlib import Path
args = sys.argv[1:]
with open(os.environ["FAKE_MVN_LOG"], "a") as log:
    log.write(" ".join(args) + "\n")
if "package" in args:  # the procedure plugin's build, in its staging copy
    time.sleep(1.5)
    Path("target").mkdir(exist_ok=True)
    Path("target", "tripartite-procedures.jar").write_bytes(b"PK")
    sys.exit(0)
out = Path(next(a.split("=", 1)[1] for a in args if a.startswith("-DoutputDirectory=")))
out.mkdir(parents=True, exist_ok=True)
time.sleep(1.5)
if "dependency:copy-dependencies" in args and "-DexcludeGroupIds=org.neo4j.gds" in args:
    for name in ("neo4j-5.26.19.jar", "apoc-5.26.19-core.jar", "lucene-core-9.11.1.jar"):
        (out / name).write_bytes(b"PK")
elif "dependency:copy-dependencies" in args:
    (out / "proc-2.13.9.jar").write_bytes(b"PK")
else:
    (out / "apoc-extended-5.26.0-extended.jar").write_bytes(b"PK")
'''


def test_two_first_starts_on_one_cache_take_turns(tmp_path):
    """Two processes resolve the jars into one fresh cache at once, then build the procedure
    plugin: one fetches (and builds), the other waits and finds them; nothing half-made is left
    (Maven stands in as a script on PATH)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    mvn = bin_dir / "mvn"
    mvn.write_text(FAKE_MVN)
    mvn.chmod(0o755)
    cache = tmp_path / "cache"
    log = tmp_path / "mvn.log"
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "FAKE_MVN_LOG": str(log)}
    code = ("import sys; from pathlib import Path; from tripartite.infra.config import load_settings; "
            "from tripartite.infra.server.maven import resolve_jars; "
            "from tripartite.infra.server.plugin import build; "
            "jars = resolve_jars(Path(sys.argv[1]), load_settings(env={}).server, print); print('ROOT', jars.root); "
            "print('JAR', build(Path(sys.argv[1]), '5.26.19', print))")
    runs = [subprocess.Popen([sys.executable, "-c", code, str(cache)], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True) for _ in range(2)]
    outputs = [run.communicate(timeout=120)[0] for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    roots = {line.split(" ", 1)[1] for out in outputs for line in out.splitlines() if line.startswith("ROOT ")}
    assert len(roots) == 1
    root = Path(roots.pop())
    assert (root / "resolved.ok").is_file() and (root / "plugins" / "apoc-5.26.19-core.jar").is_file()
    assert not list(root.parent.glob("*.partial*"))
    assert sum("waiting for it to finish" in out for out in outputs) == 1
    calls = log.read_text().splitlines()
    assert len(calls) == 4  # lib, GDS, APOC Extended, the plugin: once, not twice
    assert sum(" package " in f" {call} " for call in calls) == 1
    jars = {line.split(" ", 1)[1] for out in outputs for line in out.splitlines() if line.startswith("JAR ")}
    assert len(jars) == 1 and Path(jars.pop()).read_bytes() == b"PK"
    assert not list((cache / "procedures").glob("*-build-*"))


def test_a_plugin_that_does_not_build_costs_one_line_and_no_jar(tmp_path, monkeypatch):
    """A procedure plugin whose sources do not compile, or no Maven at all: one line each, no
    jar (the server then starts without it and select runs the Cypher scripts)."""
    sources = tmp_path / "procedures"
    (sources / "src" / "main" / "java").mkdir(parents=True)
    (sources / "pom.xml").write_text((REPO / "procedures" / "pom.xml").read_text(encoding="utf-8"), encoding="utf-8")
    (sources / "src" / "main" / "java" / "Broken.java").write_text("class Broken { this does not compile }\n")
    monkeypatch.setattr(plugin, "procedures_dir", lambda: sources)
    said: list[str] = []
    assert plugin.build(tmp_path / "cache", "5.26.19", said.append) is None
    assert len(said) == 2 and said[0].startswith("building the procedure plugin"), said
    assert "did not build" in said[1] and "select runs the Cypher scripts" in said[1]
    assert not list((tmp_path / "cache" / "procedures").glob("*.jar"))

    said.clear()
    monkeypatch.setenv("PATH", str(tmp_path / "no-tools"))
    assert plugin.build(tmp_path / "other-cache", "5.26.19", said.append) is None
    assert len(said) == 1 and "Maven (mvn) not found" in said[0], said


def test_server_plugin_puts_this_versions_jar_where_another_server_loads_it(tmp_path):
    """`server plugin --out DIR`: the jar these sources build (cached after the first build),
    replacing an older version there, and the setting that server needs."""
    out = tmp_path / "plugins"
    out.mkdir()
    (out / "tripartite-procedures-0123456789ab.jar").write_bytes(b"an older build")
    result = CliRunner().invoke(cli, ["server", "plugin", "--out", str(out)], env={"TRIPARTITE_CONFIG": ""})
    assert result.exit_code == 0, result.output
    jars = sorted(path.name for path in out.glob("*.jar"))
    assert jars == [f"tripartite-procedures-{plugin.source_hash()}.jar"]
    assert "dbms.security.procedures.unrestricted=apoc.*,gds.*,tripartite.*" in result.output
    import zipfile
    with zipfile.ZipFile(out / jars[0]) as jar:  # a real jar, with the procedures and their version
        assert "org/tripartite/selection/SelectionProcedures.class" in jar.namelist()
        assert plugin.source_hash() in jar.read("tripartite-procedures.properties").decode()
