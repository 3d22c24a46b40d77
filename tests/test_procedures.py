"""Browser-callable procedures (APOC Extended's apoc.custom) run the same Cypher files as the CLI."""
import time

import pytest

from test_selection import clear, write_graph
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
