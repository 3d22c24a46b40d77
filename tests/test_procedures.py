"""Browser-callable procedures (APOC Extended's apoc.custom) run the same Cypher files as the CLI;
the procedure plugin's calls can be cancelled as any query can."""
import threading
import time

import pytest

from test_selection import clear, require_plugin, write_graph
from tripartite.infra import migrations
from tripartite.infra.config import SelectionSettings
from tripartite.infra.graph import Graph
from tripartite.infra.paths import migrations_dir
from tripartite.selection import prompt_material, select

pytestmark = pytest.mark.neo4j


def test_prompt_procedure_equals_the_cli_script(driver, neo4j_db):
    records, _, _ = driver.execute_query(
        "SHOW PROCEDURES YIELD name WHERE name = 'apoc.custom.installProcedure' RETURN count(*) AS n",
        database_="system")
    if not records[0]["n"]:
        pytest.skip("this Neo4j has no APOC Extended (apoc.custom)")
    migrations.migrate(Graph(driver, neo4j_db.database), migrations_dir())
    clear(driver)
    write_graph(driver, {("o0", "c0"): [1, 0, 0], ("o0", "c1"): [0, 1, 0]},
                {("c0", "t0"): [1, 0, 0], ("c0", "t1"): [0, 1, 0], ("c1", "t1"): [0, 1, 0]})
    driver.execute_query("MATCH (t:Chunk) MERGE (d:Document {id: 'doc', title: 'Doc'}) MERGE (t)-[:FROM_DOCUMENT]->(d)",
                         database_=neo4j_db.database)
    select(Graph(driver, neo4j_db.database), 0.6, 0.2)
    graph = Graph(driver, neo4j_db.database)
    # The procedure's defaults are the CLI's: floor selection, the default tokens per concept.
    defaults = {"fixed_tokens": 60, "tokens_per_concept": SelectionSettings.tokens_per_concept}
    expected = prompt_material(graph, "o0", **defaults)
    # apoc.custom registers procedures on its refresh interval, and a server that ran an older
    # definition (same name, other columns) serves that one until then.
    deadline = time.monotonic() + 90
    while True:
        try:
            got, _, _ = driver.execute_query("CALL custom.tripartite.prompt($id)", id="o0",
                                             database_=neo4j_db.database)
            if [r.data() for r in got] == expected or time.monotonic() > deadline:
                break
        except Exception:
            if time.monotonic() > deadline:
                raise
        time.sleep(0.5)
    assert [r.data() for r in got] == expected
    assert [c["concept_id"] for c in expected] == ["c0", "c1"]
    # The paper's classification graph: every candidate, selected or not, as the script lists it.
    listed = graph.run("selection/candidates", object_ids=["o0"])
    candidates, _, _ = driver.execute_query("CALL custom.tripartite.candidates(['o0'])", database_=neo4j_db.database)
    assert sorted((r["concept_id"], r["chunk_id"], r["score"], r["percentile"], r["selected"]) for r in candidates) \
        == sorted((r["concept_id"], r["chunk_id"], r["w"], r["p"], r["selected"]) for r in listed)
    assert len(listed) == 3  # o0: c0 in t0 and t1, c1 in t1
    # The optional budget argument reaches the same script.
    budgeted, _, _ = driver.execute_query("CALL custom.tripartite.prompt($id, 1)", id="o0", database_=neo4j_db.database)
    assert [r.data() for r in budgeted] == prompt_material(graph, "o0", max_per_concept=1, **defaults)
    assert [len(r["evidence"]) for r in budgeted] == [1, 1] and len(expected[0]["evidence"]) == 2
    # And so do the token budget and the selection.
    tight, _, _ = driver.execute_query("CALL custom.tripartite.prompt($id, null, 80, 'paper')", id="o0",
                                       database_=neo4j_db.database)
    assert [r.data() for r in tight] == prompt_material(graph, "o0", None, "paper", 80, **defaults)
    assert sum(len(r["evidence"]) for r in tight) < sum(len(r["evidence"]) for r in expected)
    # A stale selection is refused with the CLI's own line.
    graph.run("selection/inputs_changed", what="documents")
    with pytest.raises(Exception, match="Tripartite: documents, ontologies or chunk extracts changed"):
        driver.execute_query("CALL custom.tripartite.prompt($id)", id="o0", database_=neo4j_db.database)


def test_a_long_plugin_call_stops_when_its_transaction_is_terminated(driver, neo4j_db):
    """TERMINATE TRANSACTION (the Browser's stop) ends a plugin call within a loop step of its
    workers (milliseconds), not when its work is done, and what it wrote goes with its
    transaction: a full score step over 12 million candidates (about 5 s on two cores; a plugin
    that checked only where it writes ran on for 2 s) is stopped a quarter of a second in."""
    require_plugin(driver)
    clear(driver)
    driver.execute_query("""
        UNWIND range(0, 1) AS k CREATE (c:Concept {id: 'c' + k, name: 'c' + k})
        WITH c UNWIND range(0, 1499) AS i MERGE (t:Chunk {id: 't' + i}) CREATE (c)-[r:MENTIONED_IN]->(t)
        WITH r CALL db.create.setRelationshipVectorProperty(r, 'embedding', [x IN range(1, 384) | rand() - 0.5])""",
                         database_=neo4j_db.database)
    driver.execute_query("""
        UNWIND range(0, 3999) AS i CREATE (o:Object {id: 'o' + i, kind: 'test', text: 'o'})
        WITH o MATCH (c:Concept) CREATE (o)-[r:CONCERNS]->(c)
        WITH r CALL db.create.setRelationshipVectorProperty(r, 'embedding', [x IN range(1, 384) | rand() - 0.5])""",
                         database_=neo4j_db.database)
    outcome: dict = {}

    def score() -> None:
        try:  # an auto-commit query: the driver retries nothing
            with driver.session(database=neo4j_db.database) as session:
                session.run("CALL tripartite.selection.score(null)").consume()
            outcome["error"] = None
        except Exception as error:
            outcome["error"] = error
        outcome["ended"] = time.monotonic()

    call = threading.Thread(target=score)
    call.start()
    running = "WHERE currentQuery STARTS WITH 'CALL tripartite.selection.score' RETURN transactionId"
    seen = None
    deadline = time.monotonic() + 30
    while seen is None and time.monotonic() < deadline and call.is_alive():
        records, _, _ = driver.execute_query(f"SHOW TRANSACTIONS YIELD transactionId, currentQuery {running}",
                                             database_=neo4j_db.database)
        seen = (records[0]["transactionId"], time.monotonic()) if records else None
    assert seen is not None, "the call never showed in SHOW TRANSACTIONS"
    time.sleep(max(0.0, seen[1] + 0.25 - time.monotonic()))  # well inside the procedure
    if not call.is_alive():
        pytest.skip("this server scored 12 million candidates in under a quarter of a second")
    terminated = time.monotonic()
    driver.execute_query("TERMINATE TRANSACTION $id", id=seen[0], database_=neo4j_db.database)
    call.join(30)
    assert not call.is_alive()
    assert outcome["error"] is not None and "Terminated" in str(outcome["error"]), outcome["error"]
    assert outcome["ended"] - terminated < 1.0
    records, _, _ = driver.execute_query(
        "RETURN COUNT { (:ScoreDistribution) } AS distributions, "
        "COUNT { MATCH ()-[oc:CONCERNS]->() WHERE oc.scores IS NOT NULL } AS scored", database_=neo4j_db.database)
    assert records[0].data() == {"distributions": 0, "scored": 0}
