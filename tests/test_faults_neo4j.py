"""Fault injection on the Neo4j side: an address that is not Neo4j's Bolt port, work that meets
the server's memory limits, and the selection's engine said where it is not the plugin. Each
case asserts the one line a user sees, the exit code and what the graph holds."""
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from conftest import cli_env, free_port, invoke

pytestmark = pytest.mark.neo4j


def one_error_line(result) -> str:
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 1 and len(lines) == 1 and lines[0].startswith("error: "), result.output
    return lines[0]


@pytest.fixture
def env(neo4j_db, tmp_path):
    return cli_env(neo4j_db, tmp_path)


class Page(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(b"<html>a web application</html>")

    def log_message(self, *args):
        pass


def test_a_port_that_serves_http_but_not_neo4j_is_named_at_once(env):
    """A web server (not Neo4j's HTTP port, so no Bolt address to offer) and a port that accepts
    connections and says nothing: neither is "connection refused", and neither waits out the
    driver's 10 s connection timeout. A port where nothing listens still is refused."""
    web = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=web.serve_forever, daemon=True).start()
    silent = socket.create_server(("127.0.0.1", 0))
    held = []
    threading.Thread(target=lambda: held.extend(iter(lambda: silent.accept()[0], None)), daemon=True).start()
    try:
        for port, words in ((web.server_address[1], "answers HTTP"),
                            (silent.getsockname()[1], "does not answer Neo4j's Bolt handshake")):
            for scheme in ("bolt", "neo4j"):
                started = time.monotonic()
                line = one_error_line(invoke(["documents", "list"], {**env, "NEO4J_URI": f"{scheme}://127.0.0.1:{port}"}))
                assert words in line and "not a Neo4j Bolt port" in line and "NEO4J_URI" in line, line
                assert "connection refused" not in line and time.monotonic() - started < 6, line
        line = one_error_line(invoke(["documents", "list"], {**env, "NEO4J_URI": f"bolt://127.0.0.1:{free_port()}"}))
        assert "connection refused" in line
    finally:
        web.shutdown()
        silent.close()


def big_ontology_csv(path, concepts: int) -> None:
    """A CSV of `concepts` terms in 20 classes under one root, each with two synonyms."""
    import csv

    with path.open("w", newline="", encoding="utf-8") as handle:
        table = csv.writer(handle)
        table.writerow(["id", "name", "parent", "synonyms"])
        table.writerow(["R", "root", "", ""])
        table.writerows([f"K{k}", f"group {k}", "R", ""] for k in range(20))
        table.writerows([f"C{i}", f"finding {i}", f"K{i % 20}", f"sign {i}|marker {i}"] for i in range(concepts))
    return path


@pytest.mark.slow
def test_a_20000_concept_ontology_loads_beside_a_triplet_graph(env, driver, tmp_path):
    """Linking the triplet graph to the ontology ran inside the load's transaction and compared
    every entity with every concept: beside a triplet graph a 20,000-concept import hit the
    server's transaction memory limit (and was told to run it again). Now the link commits in
    batches of its own, through the entity keys' index."""
    from conftest import load_sample

    load_sample(env, ["kg", "extract"])
    # A triplet graph of a few thousand entities, as a real corpus makes; some named as concepts.
    driver.execute_query("UNWIND range(1, 3000) AS i CREATE (:__Entity__:Thing {key: 'sign ' + (i * 7) + '|Thing', "
                         "name: 'Sign ' + (i * 7), type: 'Thing'})")
    source = big_ontology_csv(tmp_path / "findings.csv", 20_000)
    result = invoke(["ontology", "import", str(source), "--root", "R", "--name", "findings",
                     "--out", str(tmp_path / "plugins"), "--load"], env)
    assert result.exit_code == 0, result.output
    records, _, _ = driver.execute_query("MATCH (c:Concept {ontology: 'findings'}) RETURN count(c) AS n")
    assert records[0]["n"] == 20_020  # every term under the root is a concept: the 20 group terms too
    linked, _, _ = driver.execute_query("MATCH (:__Entity__)-[:IS_CONCEPT]->(c:Concept) "
                                        "RETURN c.ontology AS ontology, count(*) AS n ORDER BY ontology")
    links = {r["ontology"]: r["n"] for r in linked}
    assert links["findings"] == len(range(7, 20_000, 7))  # 'Sign 7' is finding 7's synonym, and so on
    assert links["cardiology"] > 0  # the plugin's concepts stay linked


def test_select_says_so_when_it_runs_on_the_cypher_scripts(env):
    """The plugin is the fast path; a select that runs on the scripts (asked to, or because the
    server has no plugin of these sources) says so on its line, not only in `doctor`."""
    from conftest import load_sample
    from tripartite.infra.config import load_settings
    from tripartite.infra.graph import connect
    from tripartite.selection.engine import choose

    load_sample(env, ["analyze"])
    scripts = invoke(["select"], {**env, "TRIPARTITE_SELECT_ENGINE": "cypher"})
    assert scripts.exit_code == 0 and "ran on the Cypher scripts, as [selection] engine asks" in scripts.output
    with connect(load_settings(env=env)) as graph:
        engine = choose(graph)
    chosen = invoke(["select"], env)
    assert chosen.exit_code == 0, chosen.output
    if engine.name == "plugin":
        assert "ran on" not in chosen.output
    else:
        assert f"ran on {engine.reason}" in chosen.output
