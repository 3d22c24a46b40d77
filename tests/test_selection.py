"""The selection in Cypher equals an independent NumPy implementation, on random tripartite
graphs (hypothesis) and on the edge cases; plus the prompt's JSON shape.

Ties: w is the cosine rounded to 5 decimals in both implementations; candidates of a concept
with equal w share one percentile, the fraction of that concept's candidates with w' <= w.
Neo4j's vector.similarity.cosine works in float32 (errors near 1e-7), so the random vectors
have components in {-1, 0, 1}: all 13 cosines they can make lie at least 5e-7 away from a
5-decimal rounding boundary, and both implementations round them alike.
"""
import json
import os
from collections import defaultdict

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import cli_env, empty, wipe
from tripartite.cli import cli
from tripartite.infra import migrations
from tripartite.infra.graph import Graph
from tripartite.selection import candidates, prompt_material, select, tripartite_prompt
from tripartite.infra.server.plugin import source_hash
from tripartite.selection.engine import Engine, for_prompts, plugin_version
from tripartite.selection.run import remove_objects

pytestmark = pytest.mark.neo4j


# ---- the reference --------------------------------------------------------------------------------
def reference(concerns: dict, mentions: dict, alpha: float, beta: float) -> dict:
    """(object, concept, chunk) -> (w, p, reason or None), straight from the paper's definitions."""
    def cosine(a, b):
        a, b = np.asarray(a, dtype=np.float32).astype(np.float64), np.asarray(b, dtype=np.float32).astype(np.float64)
        return round(float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b))), 5)

    w = {(o, c, t): cosine(vo, vt) for (o, c), vo in concerns.items() for (c2, t), vt in mentions.items() if c2 == c}
    by_concept = defaultdict(list)
    for (o, c, t), score in w.items():
        by_concept[c].append(score)
    p = {k: float(np.sum(np.asarray(by_concept[k[1]]) <= score)) / len(by_concept[k[1]]) for k, score in w.items()}
    alpha_selected = {k for k in w if p[k] > alpha}
    anchors = {(o, t) for (o, c, t) in alpha_selected}
    result = {}
    for k in w:
        o, c, t = k
        reason = "alpha" if k in alpha_selected else ("beta" if (o, t) in anchors and p[k] > beta else None)
        result[k] = (w[k], p[k], reason)
    return result


def floor_reference(concerns: dict, mentions: dict) -> set:
    """The floor, a step beyond the paper: each (object, concept) pair's best candidate,
    highest w first, then the smallest chunk id."""
    best = {}
    for (o, c, t), (w, _, _) in reference(concerns, mentions, 0.5, 0.5).items():
        if (o, c) not in best or (-w, t) < (-best[(o, c)][0], best[(o, c)][1]):
            best[(o, c)] = (w, t)
    return {(o, c, t) for (o, c), (_, t) in best.items()}


def chosen_reference(concerns: dict, mentions: dict, alpha: float, beta: float, selection: str) -> dict:
    """(object, concept) -> {chunk: reason} as the prompt chooses: the paper's selection, plus
    (floor) each concept's best candidate, reason 'floor' when alpha and beta left it out."""
    chosen: dict = defaultdict(dict)
    for (o, c, t), (_, _, reason) in reference(concerns, mentions, alpha, beta).items():
        if reason:
            chosen[(o, c)][t] = reason
    if selection == "floor":
        for (o, c, t) in floor_reference(concerns, mentions):
            chosen[(o, c)].setdefault(t, "floor")
    return dict(chosen)


# ---- graphs in Neo4j ------------------------------------------------------------------------------
def write_graph(driver, concerns: dict, mentions: dict) -> None:
    objects = sorted({o for o, _ in concerns})
    concepts = sorted({c for _, c in concerns} | {c for c, _ in mentions})
    chunks = sorted({t for _, t in mentions})
    driver.execute_query("""
        UNWIND $objects AS id MERGE (o:Object {id: id}) SET o.kind = 'test', o.text = id, o.analysed_concepts = $concepts
        WITH count(*) AS _ UNWIND $concepts AS id MERGE (c:Concept {id: id}) SET c.name = id
        WITH count(*) AS _ UNWIND $chunks AS id MERGE (t:Chunk {id: id})
        SET t.index = toInteger(substring(id, 1)), t.analysed_concepts = $concepts  // as `analyze` leaves them""",
                         objects=objects, concepts=concepts, chunks=chunks)
    driver.execute_query("""
        UNWIND $rows AS row MATCH (o:Object {id: row.o}), (c:Concept {id: row.c})
        CREATE (o)-[r:CONCERNS {summary: row.o + ' about ' + row.c}]->(c)
        WITH r, row CALL db.create.setRelationshipVectorProperty(r, 'embedding', row.v)""",
                         rows=[{"o": o, "c": c, "v": v} for (o, c), v in concerns.items()])
    driver.execute_query("""
        UNWIND $rows AS row MATCH (c:Concept {id: row.c}), (t:Chunk {id: row.t})
        CREATE (c)-[r:MENTIONED_IN {summary: row.c + ' in ' + row.t}]->(t)
        WITH r, row CALL db.create.setRelationshipVectorProperty(r, 'embedding', row.v)""",
                         rows=[{"c": c, "t": t, "v": v} for (c, t), v in mentions.items()])


def small_vectors(seed: int):
    """A source of random 3-vectors with components -1, 0 or 1 (never all zero): their cosines
    fall in a dozen bins and tie often, and lie away from rounding boundaries."""
    rng = np.random.default_rng(seed)

    def vector() -> list[int]:
        v = rng.integers(-1, 2, 3).tolist()
        return v if any(v) else [1, 0, 0]

    return vector


def in_one_document(driver) -> None:
    """Every chunk from one document ('Doc'), so that prompts can cite them."""
    driver.execute_query("MATCH (t:Chunk) MERGE (d:Document {id: 'doc', title: 'Doc'}) MERGE (t)-[:FROM_DOCUMENT]->(d)")


def stored(driver) -> dict:
    """What the server computed: every candidate (the selection's G'(o), cypher/selection/
    candidates.cypher): w from its pair's scores, p from the concept's distribution, the class
    from its pair's Evidence."""
    out = {}
    for r in candidates(Graph(driver, "neo4j")):
        assert r["selected"] == (r["reason"] is not None)
        out[(r["object_id"], r["concept_id"], r["chunk_id"])] = (r["w"], r["p"], r["reason"])
    assert len(out) == count(driver, "MATCH ()-[oc:CONCERNS]->() RETURN sum(size(coalesce(oc.scores, [])))")
    return out


def stored_floor(driver) -> set:
    return {(r["object_id"], r["concept_id"], r["chunk_id"]) for r in candidates(Graph(driver, "neo4j")) if r["best"]}


def prompted(driver, objects, selection: str, engine: Engine | None = None, **options) -> dict:
    """What prompt_material chose for each object: (object, concept) -> {chunk: reason}."""
    out = {}
    for o in objects:
        for row in prompt_material(Graph(driver, "neo4j"), o, selection=selection, engine=engine, **options):
            if row["evidence"]:
                out[(o, row["concept_id"])] = {e["chunk_id"]: e["reason"] for e in row["evidence"]}
    return out


def histograms(driver) -> dict:
    """Each concept's stored distribution as the scores it holds: n and all of them, ascending
    (its bins' and its unbinned ones), once `below` is checked to count the bins' scores."""
    records, _, _ = driver.execute_query("""
        MATCH (s:ScoreDistribution)
        RETURN s.concept_id AS c, s.n AS n, s.low AS low, s.below AS below, s.unbinned AS unbinned,
               COLLECT { MATCH (b:ScoreBin {concept_id: s.concept_id}) RETURN [b.bin, b.w, b.upto] ORDER BY b.bin } AS bins""")
    out = {}
    for r in records:
        scores: list[float] = []
        for key, ws, upto in r["bins"]:
            assert r["below"][key - r["low"]] == len(scores)
            scores += [w for i, w in enumerate(ws) for _ in range(upto[i] - (upto[i - 1] if i else 0))]
        scores = sorted(scores + list(r["unbinned"] or []))
        assert r["n"] == len(scores)
        out[r["c"]] = (r["n"], scores)
    return out


def count(driver, query: str) -> int:
    records, _, _ = driver.execute_query(query)
    return records[0][0]


@pytest.fixture(params=["cypher", "plugin"])
def engine(request, selection_db) -> Engine:
    """Each path of the selection's steps (the procedure plugin only where the test server runs
    the one these sources build: `tripartite server start` installs it)."""
    if request.param == "plugin":
        require_plugin(selection_db)
    return Engine(request.param, "test")


def require_plugin(driver) -> None:
    """Skip the test unless the test server runs the plugin these sources build (fail it in CI,
    where the plugin path must be tested)."""
    if plugin_version(Graph(driver, "neo4j")) != source_hash():
        missing = "the test server has no procedure plugin built from these sources"
        if os.environ.get("TRIPARTITE_TEST_PLUGIN") == "required":
            pytest.fail(f"{missing} (TRIPARTITE_TEST_PLUGIN=required)")
        pytest.skip(missing)


@pytest.fixture(scope="module")
def selection_db(neo4j_target):
    empty(neo4j_target)
    with neo4j_target.driver() as driver:
        yield driver


def clear(driver):
    driver.execute_query("MATCH (n) WHERE n:Object OR n:Concept OR n:Chunk OR n:Evidence OR n:ScoreDistribution "
                         "OR n:ScoreBin OR n:SelectionState OR n:InputsVersion OR n:Document OR n:Section DETACH DELETE n")


vectors = st.lists(st.integers(-1, 1), min_size=3, max_size=3).filter(lambda v: any(v))


@st.composite
def tripartite_graphs(draw):
    objects = [f"o{i}" for i in range(draw(st.integers(1, 4)))]
    concepts = [f"c{i}" for i in range(draw(st.integers(1, 3)))]
    chunks = [f"t{i}" for i in range(draw(st.integers(1, 6)))]
    concerns = {(o, c): draw(vectors) for o in objects for c in concepts if draw(st.booleans())}
    mentions = {(c, t): draw(vectors) for c in concepts for t in chunks if draw(st.booleans())}
    alpha = draw(st.sampled_from([0.0, 0.25, 0.5, 0.75, 0.9, 1.0]) | st.floats(0, 1))
    beta = draw(st.sampled_from([0.0, 0.5, 0.95]) | st.floats(0, 1))
    return concerns, mentions, alpha, beta


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(graph=tripartite_graphs(), concurrency=st.sampled_from([None, 1, 3]))
def test_the_selection_equals_numpy(selection_db, engine, graph, concurrency):
    # None: the server's processors; any concurrency, and either path, gives the same selection.
    concerns, mentions, alpha, beta = graph
    clear(selection_db)
    write_graph(selection_db, concerns, mentions)
    select(Graph(selection_db, "neo4j"), alpha, beta, concurrency=concurrency, engine=engine)
    assert stored(selection_db) == reference(concerns, mentions, alpha, beta)
    assert stored_floor(selection_db) == floor_reference(concerns, mentions)
    objects = sorted({o for o, _ in concerns})
    for selection in ("paper", "floor"):
        assert prompted(selection_db, objects, selection) == chosen_reference(concerns, mentions, alpha, beta, selection)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(graph=tripartite_graphs(), new=st.lists(vectors, min_size=0, max_size=3),
       params=st.sampled_from([(0.9, 0.5), (0.5, 0.2), (0.3, 0.7)]), removed=st.integers(0, 2),
       concurrency=st.sampled_from([None, 1, 3]))
def test_incremental_additions_and_removals_equal_the_reference(selection_db, engine, graph, new, params, removed,
                                                                 concurrency):
    # A full run, then objects removed and one new object (or none) scored on its own, with alpha
    # and beta that may differ from the first run's, at any concurrency: the stored result must be
    # the reference on the whole graph that is left.
    concerns, mentions, alpha, beta = graph
    clear(selection_db)
    write_graph(selection_db, concerns, mentions)
    graph_db = Graph(selection_db, "neo4j")
    select(graph_db, alpha, beta, concurrency=concurrency, engine=engine)
    gone = sorted({o for o, _ in concerns})[:removed]
    assert [row["id"] for row in remove_objects(graph_db, gone)] == gone
    left = {(o, c): v for (o, c), v in concerns.items() if o not in gone}
    concepts = sorted({c for _, c in concerns} | {c for c, _ in mentions})
    added = {("o_new", c): v for c, v in zip(concepts, new)}
    write_graph(selection_db, added, {})
    select(graph_db, *params, object_ids=["o_new"] if added else [], concurrency=concurrency, engine=engine)
    assert stored(selection_db) == reference({**left, **added}, mentions, *params)
    assert stored_floor(selection_db) == floor_reference({**left, **added}, mentions)
    assert count(selection_db, "MATCH (s:SelectionState) RETURN size(coalesce(s.pending_concepts, []))") == 0
    # The histograms an incremental run updated (the plugin: bin by bin, or a new object's scores
    # unbinned) hold the scores a full run's do.
    kept = histograms(selection_db)
    select(graph_db, *params, concurrency=concurrency, engine=engine)
    assert kept == histograms(selection_db)


def test_prompts_wait_for_select_after_an_object_is_removed(selection_db, neo4j_target, tmp_path):
    clear(selection_db)
    write_graph(selection_db, {("o0", "c0"): [1, 0, 0], ("o1", "c0"): [0, 1, 0]},
                {("c0", "t0"): [1, 1, 0], ("c0", "t1"): [0, 1, 1]})
    graph_db = Graph(selection_db, "neo4j")
    select(graph_db, 0.5, 0.5)
    env = cli_env(neo4j_target, tmp_path)
    removed = CliRunner().invoke(cli, ["objects", "remove", "o1"], env=env)
    assert removed.exit_code == 0 and "removed   o1 (2 candidates)" in removed.output
    refused = CliRunner().invoke(cli, ["prompt", "o0"], env=env)
    assert refused.exit_code == 1 and "objects were removed" in refused.output and "`tripartite select`" in refused.output
    again = CliRunner().invoke(cli, ["objects", "remove", "o1"], env=env)
    assert again.exit_code == 1 and "no object with id 'o1'" in again.output
    select(graph_db, 0.5, 0.5, object_ids=[])  # an incremental run rebuilds the pending concepts
    assert stored(selection_db) == reference({("o0", "c0"): [1, 0, 0]},
                                             {("c0", "t0"): [1, 1, 0], ("c0", "t1"): [0, 1, 1]}, 0.5, 0.5)
    assert CliRunner().invoke(cli, ["prompt", "o0"], env=env).exit_code == 0


@pytest.mark.parametrize("case", ["single", "all_equal", "alpha_zero", "alpha_one", "beta_above_alpha"])
def test_edge_cases(selection_db, engine, case):
    clear(selection_db)
    if case == "single":
        concerns, mentions, alpha, beta = {("o0", "c0"): [1, 0, 0]}, {("c0", "t0"): [1, 1, 0]}, 0.9, 0.5
    elif case == "all_equal":
        concerns = {("o0", "c0"): [1, 0, 0], ("o1", "c0"): [1, 0, 0]}
        mentions = {("c0", "t0"): [0, 1, 0], ("c0", "t1"): [0, 0, 1]}
        alpha, beta = 0.9, 0.5
    else:
        concerns = {("o0", "c0"): [1, 0, 0], ("o0", "c1"): [0, 1, 0]}
        mentions = {("c0", "t0"): [1, 0, 0], ("c0", "t1"): [0, 1, 0], ("c1", "t0"): [1, 1, 0], ("c1", "t1"): [0, 1, 0]}
        alpha, beta = {"alpha_zero": (0.0, 0.5), "alpha_one": (1.0, 0.5), "beta_above_alpha": (0.4, 0.8)}[case]
    write_graph(selection_db, concerns, mentions)
    select(Graph(selection_db, "neo4j"), alpha, beta, engine=engine)
    got = stored(selection_db)
    assert got == reference(concerns, mentions, alpha, beta)
    reasons = [reason for _, _, reason in got.values()]
    if case == "single":
        assert got == {("o0", "c0", "t0"): (round(1 / np.sqrt(2), 5), 1.0, "alpha")}
    if case == "all_equal":
        assert {p for _, p, _ in got.values()} == {1.0} and set(reasons) == {"alpha"}
    if case == "alpha_zero":
        assert set(reasons) == {"alpha"}  # every percentile is above 0
    if case == "alpha_one":
        assert set(reasons) == {None}     # no percentile exceeds 1
    if case == "beta_above_alpha":
        assert "beta" not in reasons


def test_object_without_concepts_gets_no_prompt(selection_db, neo4j_target, tmp_path):
    clear(selection_db)
    write_graph(selection_db, {("o0", "c0"): [1, 0, 0]}, {("c0", "t0"): [1, 0, 0]})
    selection_db.execute_query("CREATE (:Object {id: 'lonely', kind: 'test', text: 'nothing'})")
    select(Graph(selection_db, "neo4j"), 0.9, 0.5)
    env = cli_env(neo4j_target, tmp_path)
    result = CliRunner().invoke(cli, ["prompt", "lonely"], env=env)
    assert result.exit_code == 1 and "has not been analysed; run `tripartite analyze`" in result.output
    # Analysed, and nothing found: it says so instead of asking for analyze again.
    selection_db.execute_query("MATCH (o:Object {id: 'lonely'}) SET o.analysed_concepts = ['c0']")
    result = CliRunner().invoke(cli, ["prompt", "lonely"], env=env)
    assert result.exit_code == 1 and "was analysed and concerns none of the loaded concepts" in result.output
    # A failed analysis is named, with its error, and analyze again is the way out.
    selection_db.execute_query("MATCH (o:Object {id: 'lonely'}) SET o.analysis_error = 'object lonely: timed out'")
    result = CliRunner().invoke(cli, ["prompt", "lonely"], env=env)
    assert result.exit_code == 1 and "the analysis of object 'lonely' failed (object lonely: timed out)" in result.output


def test_incremental_object_equals_full_recompute(selection_db, engine):
    clear(selection_db)
    concerns = {("o0", "c0"): [1, 0, 0], ("o0", "c1"): [0, 1, 1], ("o1", "c0"): [1, 1, 0]}
    mentions = {("c0", "t0"): [1, 0, 1], ("c0", "t1"): [1, 1, 0], ("c1", "t1"): [0, 1, 0], ("c1", "t2"): [1, 1, 1]}
    write_graph(selection_db, concerns, mentions)
    select(Graph(selection_db, "neo4j"), 0.5, 0.2, engine=engine)
    # A new object arrives and is scored on its own.
    new = {("o2", "c0"): [0, 0, 1]}
    write_graph(selection_db, new, {})
    rebuilt = "MATCH (s:ScoreDistribution) RETURN s.concept_id AS c, s.updated_at AS at ORDER BY c"
    before = {r["c"]: r["at"] for r in selection_db.execute_query(rebuilt).records}
    report = select(Graph(selection_db, "neo4j"), 0.5, 0.2, object_ids=["o2"], engine=engine)
    after = {r["c"]: r["at"] for r in selection_db.execute_query(rebuilt).records}
    assert report.concepts == 1 and report.candidates == 2  # o2's own candidates
    assert after["c1"] == before["c1"] and after["c0"] > before["c0"]  # only c0's histogram changed
    assert stored(selection_db) == reference({**concerns, **new}, mentions, 0.5, 0.2)


def test_a_graph_of_many_pairs_stays_exact_through_the_plugins_parallel_scan(selection_db):
    # Above 512 (object, concept) pairs the plugin's incremental classify reads the pairs'
    # scores on every core, each worker in a transaction of its own (Classify.moved): a new
    # object, a removed one, a new beta (which moves a few objects) and a new alpha (which
    # moves most, and runs as a full classification) each leave the reference's selection.
    require_plugin(selection_db)
    plugin = Engine("plugin", "test")
    clear(selection_db)
    vector = small_vectors(11)
    concerns = {(f"o{i:03d}", f"c{j}"): vector() for i in range(140) for j in range(4)}
    mentions = {(f"c{j}", f"t{k}"): vector() for j in range(4) for k in range(8)}
    write_graph(selection_db, concerns, mentions)
    graph = Graph(selection_db, "neo4j")
    select(graph, 0.9, 0.5, engine=plugin)
    assert len(concerns) > 512 and stored(selection_db) == reference(concerns, mentions, 0.9, 0.5)
    new = {("new", f"c{j}"): vector() for j in range(4)}
    write_graph(selection_db, new, {})
    concerns.update(new)
    select(graph, 0.9, 0.5, object_ids=["new"], engine=plugin)
    assert stored(selection_db) == reference(concerns, mentions, 0.9, 0.5)
    remove_objects(graph, ["o000"])
    concerns = {k: v for k, v in concerns.items() if k[0] != "o000"}
    for alpha, beta in ((0.9, 0.5), (0.9, 0.6), (0.75, 0.6)):
        select(graph, alpha, beta, object_ids=[], engine=plugin)
        assert stored(selection_db) == reference(concerns, mentions, alpha, beta), (alpha, beta)
        assert stored_floor(selection_db) == floor_reference(concerns, mentions)


def test_new_objects_one_at_a_time_keep_the_selection_exact_on_both_paths(selection_db):
    # The plugin's incremental runs leave a new object's scores unbinned (Histogram.java) until
    # they outgrow an eighth of the distribution, then put them into the bins. Through all of
    # it, and when the scripts take over (they rebuild a distribution that has unbinned scores)
    # or alpha and beta change, every candidate's w, P_c(w) and class is the reference's, and so
    # is the P_c(w) a prompt reports.
    require_plugin(selection_db)
    plugin, scripts = Engine("plugin", "test"), Engine("cypher", "test")
    clear(selection_db)
    vector = small_vectors(5)
    concerns = {(f"o{i:02d}", c): vector() for i in range(40) for c in ("c0", "c1")}
    mentions = {(c, f"t{j:02d}"): vector() for c in ("c0", "c1") for j in range(12)}
    write_graph(selection_db, concerns, mentions)
    in_one_document(selection_db)
    graph = Graph(selection_db, "neo4j")
    # A full run builds the very same bins on either path.
    bins = "MATCH (b:ScoreBin) RETURN collect([b.concept_id, b.bin, b.w, b.upto]) AS bins"
    layout = """MATCH (s:ScoreDistribution) WITH s ORDER BY s.concept_id
                RETURN collect([s.concept_id, s.n, s.low, s.below]) AS layout"""
    built = {}
    for path in (scripts, plugin):
        select(graph, 0.8, 0.4, engine=path)
        built[path.name] = (sorted(map(tuple, count(selection_db, bins)), key=repr), count(selection_db, layout))
    assert built["cypher"] == built["plugin"]
    unbinned = "MATCH (s:ScoreDistribution) RETURN sum(size(coalesce(s.unbinned, [])))"
    seen = []
    for i in range(8):
        new = {(f"new{i}", c): vector() for c in ("c0", "c1")}
        write_graph(selection_db, new, {})
        select(graph, 0.8, 0.4, object_ids=[f"new{i}"], engine=plugin)
        concerns.update(new)
        seen.append(count(selection_db, unbinned))
        expected = reference(concerns, mentions, 0.8, 0.4)
        assert stored(selection_db) == expected
        for row in tripartite_prompt(graph, f"new{i}")["concepts"]:
            for item in row["evidence"]:
                assert (item["w"], item["p"]) == expected[(f"new{i}", row["concept_id"], item["chunk_id"])][:2]
    assert seen[:3] == [24, 48, 72] and 0 in seen  # kept unbinned, then put into the bins
    last = "new7"
    if seen[-1] == 0:  # leave some unbinned for the rest
        last = "late"
        new = {(last, c): vector() for c in ("c0", "c1")}
        write_graph(selection_db, new, {})
        select(graph, 0.8, 0.4, object_ids=[last], engine=plugin)
        concerns.update(new)
    assert count(selection_db, unbinned) > 0
    # The last object, its scores still unbinned, is analysed again: the old ones leave, the new come.
    concerns[(last, "c0")] = [1, 1, 1] if concerns[(last, "c0")] != [1, 1, 1] else [1, -1, 0]
    selection_db.execute_query("""MATCH (:Object {id: $o})-[r:CONCERNS]->(:Concept {id: 'c0'})
        CALL db.create.setRelationshipVectorProperty(r, 'embedding', $v)""", o=last, v=concerns[(last, "c0")])
    select(graph, 0.8, 0.4, object_ids=[last], engine=plugin)
    assert stored(selection_db) == reference(concerns, mentions, 0.8, 0.4)
    if count(selection_db, unbinned) == 0:  # the change put them into the bins: one more, unbinned
        new = {("later", c): vector() for c in ("c0", "c1")}
        write_graph(selection_db, new, {})
        select(graph, 0.8, 0.4, object_ids=["later"], engine=plugin)
        concerns.update(new)
    assert count(selection_db, unbinned) > 0
    # New alpha and beta over unbinned scores, on the plugin path.
    select(graph, 0.6, 0.5, object_ids=[], engine=plugin)
    assert stored(selection_db) == reference(concerns, mentions, 0.6, 0.5)
    # The scripts take over: their run rebuilds the distributions, with the same scores.
    kept = histograms(selection_db)
    new = {("scripted", c): vector() for c in ("c0",)}
    write_graph(selection_db, new, {})
    select(graph, 0.6, 0.5, object_ids=["scripted"], engine=scripts)
    concerns.update(new)
    assert stored(selection_db) == reference(concerns, mentions, 0.6, 0.5)
    assert count(selection_db, unbinned) == 0
    assert histograms(selection_db)["c1"] == kept["c1"]


def test_incremental_update_redoes_the_blanket_across_concepts(selection_db, engine):
    # o0's (c1, t0) is selected only through the blanket of its alpha-selected (c0, t0). A new
    # object lowers (c0, t0)'s percentile below alpha; the blanket in c1 must go with it.
    clear(selection_db)
    concerns = {("o0", "c0"): [1, 1, 0], ("o0", "c1"): [0, 1, 0]}
    mentions = {("c0", "t0"): [1, 0, 0], ("c0", "t1"): [0, 0, 1], ("c1", "t0"): [1, 1, 0], ("c1", "t1"): [0, 1, 0]}
    write_graph(selection_db, concerns, mentions)
    select(Graph(selection_db, "neo4j"), 0.8, 0.3, engine=engine)
    assert stored(selection_db)[("o0", "c1", "t0")][2] == "beta"
    new = {("o1", "c0"): [1, 0, 0]}
    write_graph(selection_db, new, {})
    select(Graph(selection_db, "neo4j"), 0.8, 0.3, object_ids=["o1"], engine=engine)
    after = stored(selection_db)
    assert after == reference({**concerns, **new}, mentions, 0.8, 0.3)
    assert after[("o0", "c0", "t0")][2] is None and after[("o0", "c1", "t0")][2] is None


def test_rescored_object_that_lost_a_concept_updates_that_concept(selection_db, engine):
    clear(selection_db)
    concerns = {("o0", "c0"): [1, 0, 0], ("o0", "c1"): [0, 1, 0], ("o1", "c1"): [1, 1, 0]}
    mentions = {("c0", "t0"): [1, 0, 0], ("c1", "t0"): [0, 1, 1], ("c1", "t1"): [1, 0, 0]}
    write_graph(selection_db, concerns, mentions)
    graph = Graph(selection_db, "neo4j")
    select(graph, 0.5, 0.2, engine=engine)
    # o0 is analysed again and no longer concerns c1: its c1 candidates go, and c1's
    # distribution (which o1 shares) is rebuilt without them.
    graph.run("analysis/write_object_extracts", provider="test", model="m", embedding_model="e", rows=[{
        "item_id": "o0", "analysed": ["c0", "c1"], "by": "test/m", "prompt_version": 1,
        "extracts": [{"concept_id": "c0", "summary": "o0 about c0", "tokens": 3, "embedding": [1.0, 0.0, 0.0]}]}])
    select(graph, 0.5, 0.2, object_ids=["o0"], engine=engine)
    del concerns[("o0", "c1")]
    assert stored(selection_db) == reference(concerns, mentions, 0.5, 0.2)


def test_prompt_json_shape(selection_db, neo4j_target, tmp_path):
    clear(selection_db)
    write_graph(selection_db, {("o0", "c0"): [1, 0, 0], ("o0", "c1"): [0, 1, 0]},
                {("c0", "t0"): [1, 0, 0], ("c0", "t1"): [0, 1, 0], ("c1", "t1"): [0, 1, 0]})
    selection_db.execute_query("""MATCH (t:Chunk) MERGE (d:Document {id: 'doc', title: 'Doc'})
        MERGE (t)-[:FROM_DOCUMENT]->(d) SET t.section_id = 's' MERGE (s:Section {id: 's'}) SET s.path = ['Doc', 'Part']""")
    select(Graph(selection_db, "neo4j"), 0.6, 0.2)
    result = CliRunner().invoke(cli, ["prompt", "o0", "--format", "json", "--question", "What next?"],
                                env=cli_env(neo4j_target, tmp_path))
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert list(data) == ["object_id", "selection", "alpha", "beta", "max_tokens", "tokens", "dropped", "prompt",
                          "concepts", "references"]
    assert data["object_id"] == "o0" and data["alpha"] == 0.6 and data["beta"] == 0.2
    assert data["selection"] == "floor" and data["tokens"] <= data["max_tokens"]  # the default per-concept budget
    assert data["prompt"].startswith("Question: What next?") and data["tokens"] > 10
    assert [c["concept_id"] for c in data["concepts"]] == ["c0", "c1"]
    evidence = data["concepts"][0]["evidence"]
    assert list(evidence[0]) == ["chunk_id", "document", "section_path", "text", "w", "p", "reason", "n"]
    # c0: t0 (w=1, p=1) passes alpha; t1 (w=0, p=0.5) does not, but it shares chunk t1 with the
    # alpha-selected (o0, c1, t1) and 0.5 > beta: the Markov blanket brings it in, in reading order.
    assert [(e["chunk_id"], e["reason"]) for e in evidence] == [("t0", "alpha"), ("t1", "beta")]
    assert evidence[0]["section_path"] == ["Doc", "Part"] and evidence[0]["p"] == 1.0
    assert "[1] c0 in t0" in data["prompt"] and "References:" in data["prompt"]
    assert data["references"] == [{"n": 1, "chunk_id": "t0", "document": "Doc", "section_path": ["Doc", "Part"], "index": 0},
                                  {"n": 2, "chunk_id": "t1", "document": "Doc", "section_path": ["Doc", "Part"], "index": 1}]
    assert "Doc:\n[1] Part (chunk 0)\n[2] Part (chunk 1)" in data["prompt"]  # the chunk's place names it; the JSON gives its id
    assert [e["n"] for c in data["concepts"] for e in c["evidence"]] == [1, 2, 2]  # t1 keeps its number under c1


def test_prompt_percentiles_match_the_candidates_view(selection_db):
    # A prompt's JSON gets p from the concept's histogram (percentiles.cypher: the bin of w); so
    # does candidates.cypher; the reference counts. The cosines of these vectors fall in a dozen
    # bins per concept. The text-only prompt leaves p out.
    clear(selection_db)
    vector = small_vectors(3)
    concerns = {(f"o{i}", c): vector() for i in range(30) for c in ("c0", "c1")}
    mentions = {(c, f"t{j}"): vector() for c in ("c0", "c1") for j in range(10)}
    write_graph(selection_db, concerns, mentions)
    in_one_document(selection_db)
    select(Graph(selection_db, "neo4j"), 0.6, 0.3)
    expected = reference(concerns, mentions, 0.6, 0.3)
    assert stored(selection_db) == expected
    cited = 0
    for o in sorted({o for o, _ in concerns}):
        for row in tripartite_prompt(Graph(selection_db, "neo4j"), o)["concepts"]:
            for item in row["evidence"]:
                w, p, reason = expected[(o, row["concept_id"], item["chunk_id"])]
                assert (item["w"], item["p"], item["reason"]) == (w, p, reason)
                cited += 1
        text_only = tripartite_prompt(Graph(selection_db, "neo4j"), o, percentiles=False)
        assert all(item["p"] is None for row in text_only["concepts"] for item in row["evidence"])
    assert cited == sum(1 for _, _, reason in expected.values() if reason)


def test_budget_keeps_each_concepts_best_extracts_in_reading_order(selection_db):
    clear(selection_db)
    concerns = {("o0", "c0"): [1, 0, 0], ("o0", "c1"): [0, 1, 0], ("o1", "c0"): [0, 0, 1], ("o1", "c1"): [0, 0, 1]}
    mentions = {("c0", f"t{j}"): v for j, v in enumerate([[1, 0, 0], [1, 1, 0], [1, 0, 1], [1, 1, 1], [0, 1, 1]])}
    mentions[("c1", "t0")] = [0, 0, 1]  # o0's c1 candidate has p = 0.5: neither alpha nor beta takes it
    write_graph(selection_db, concerns, mentions)
    in_one_document(selection_db)
    select(Graph(selection_db, "neo4j"), 0.6, 0.5)
    full = {r["concept_id"]: r["evidence"] for r in prompt_material(Graph(selection_db, "neo4j"), "o0", selection="paper")}
    for budget in (1, 2, 10):
        kept = {r["concept_id"]: r["evidence"]
                for r in prompt_material(Graph(selection_db, "neo4j"), "o0", budget, selection="paper")}
        assert set(kept) == set(full) == {"c0", "c1"}  # a concept without evidence stays listed
        for concept, evidence in full.items():
            best = sorted(evidence, key=lambda e: (-e["w"], e["chunk_id"]))[:budget]
            assert kept[concept] == [e for e in evidence if e in best]  # reading order kept
    assert [e["chunk_id"] for e in full["c0"]] == ["t0", "t1", "t2"] and full["c1"] == []  # t1, t2 tie on w
    # The default selection gives c1 its best (its only) candidate all the same.
    floor = {r["concept_id"]: r["evidence"] for r in prompt_material(Graph(selection_db, "neo4j"), "o0", 1)}
    assert [(e["chunk_id"], e["reason"]) for e in floor["c1"]] == [("t0", "floor")]


def test_incremental_run_reclassifies_concepts_never_classified(selection_db):
    # A distribution with no record of the thresholds its stored classes reflect (a concept
    # classified for the first time): the next incremental run must not trust those classes.
    clear(selection_db)
    concerns = {("o0", "c0"): [1, 0, 0], ("o1", "c0"): [0, 1, 0]}
    mentions = {("c0", "t0"): [1, 0, 0], ("c0", "t1"): [0, 1, 1], ("c0", "t2"): [1, 1, 1]}
    write_graph(selection_db, concerns, mentions)
    select(Graph(selection_db, "neo4j"), 0.5, 0.3)
    selection_db.execute_query("MATCH (s:ScoreDistribution) REMOVE s.classified, s.classified_alpha_w, s.classified_beta_w")
    selection_db.execute_query("MATCH (e:Evidence) SET e.reasons = [r IN e.reasons | 'alpha']")
    new = {("o2", "c0"): [0, 0, 1]}
    write_graph(selection_db, new, {})
    select(Graph(selection_db, "neo4j"), 0.5, 0.3, object_ids=["o2"])
    assert stored(selection_db) == reference({**concerns, **new}, mentions, 0.5, 0.3)


def test_evidence_of_the_first_store_is_refused_in_one_line(selection_db, neo4j_target, tmp_path):
    clear(selection_db)
    write_graph(selection_db, {("o0", "c0"): [1, 0, 0]}, {("c0", "t0"): [1, 0, 0]})
    select(Graph(selection_db, "neo4j"), 0.5, 0.3)
    selection_db.execute_query("MATCH (e:Evidence) SET e.chunk_id = 't0'")  # the first store: one node per candidate
    result = CliRunner().invoke(cli, ["select"], env=cli_env(neo4j_target, tmp_path))
    assert result.exit_code == 1 and result.output.count("\n") == 1
    assert "one Evidence node per candidate" in result.output and "`tripartite migrate`" in result.output


# ---- the token budget ------------------------------------------------------------------------------
def budget_reference(concerns, mentions, texts, tokens, alpha, beta, fixed, max_tokens) -> set:
    """The (object, concept, chunk) extracts a budget keeps, from the rule and the size model
    of prompt_material.cypher written out again: drop first every extract that is not its
    concept's best, weakest first, then the best ones, weakest first, until the estimate fits.
    An extract costs its line (5) plus its text once per (chunk, text), else 3 for "(quoted
    above)"; a chunk's reference line (8 without a section) goes with the last extract citing
    it, its document's title line (2 without a document: these chunks have none, so one line)
    with the last extract citing the document; concepts that share a summary share its line."""
    chosen = chosen_reference(concerns, mentions, alpha, beta, "floor")
    w = {k: v[0] for k, v in reference(concerns, mentions, alpha, beta).items()}
    kept = set()
    for o in sorted({o for o, _ in concerns}):
        items = []
        for (oo, c), chunks in chosen.items():
            if oo != o:
                continue
            ranked = sorted(chunks, key=lambda t: (-w[(o, c, t)], t))
            items += [{"c": c, "t": t, "w": w[(o, c, t)], "best": i == 0} for i, t in enumerate(ranked)]
        order = sorted(items, key=lambda x: x["c"], reverse=True)
        order = sorted(order, key=lambda x: x["t"], reverse=True)
        order = sorted(order, key=lambda x: (x["best"], x["w"]))  # stable: ties keep chunk, concept descending
        last_of_chunk = {x["t"]: i for i, x in enumerate(order)}
        last_of_text = {(x["t"], texts[(x["c"], x["t"])]): i for i, x in enumerate(order)}
        savings = [5 + (tokens[(x["c"], x["t"])] if last_of_text[(x["t"], texts[(x["c"], x["t"])])] == i else 3)
                   + (8 if last_of_chunk[x["t"]] == i else 0) + (2 if i == len(order) - 1 else 0)
                   for i, x in enumerate(order)]
        concepts = [c for (oo, c) in concerns if oo == o]
        summaries = {f"{o} about {c}" for c in concepts}
        base = fixed + sum(len(s) // 4 + 1 + 3 for s in summaries) + sum(len(c) // 4 + 2 for c in concepts)
        total, dropped = base + sum(savings), 0
        while total > max_tokens and dropped < len(order):
            total -= savings[dropped]
            dropped += 1
        kept |= {(o, x["c"], x["t"]) for x in order[dropped:]}
    return kept


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(graph=tripartite_graphs(), data=st.data())
def test_budget_equals_its_reference_on_random_graphs(selection_db, graph, data):
    concerns, mentions, alpha, beta = graph
    clear(selection_db)
    write_graph(selection_db, concerns, mentions)
    # Extract texts: some concepts quote a chunk with the same words (the "(quoted above)" case).
    texts = {(c, t): (f"shared {t}" if data.draw(st.booleans()) else f"{c} in {t}") for c, t in mentions}
    tokens = {key: data.draw(st.integers(1, 60)) for key in mentions}
    selection_db.execute_query("""UNWIND $rows AS row MATCH (:Concept {id: row.c})-[m:MENTIONED_IN]->(:Chunk {id: row.t})
        SET m.summary = row.text, m.tokens = row.tokens""",
                               rows=[{"c": c, "t": t, "text": texts[(c, t)], "tokens": tokens[(c, t)]} for c, t in mentions])
    graph_db = Graph(selection_db, "neo4j")
    select(graph_db, alpha, beta)
    fixed = data.draw(st.integers(0, 40))
    budget = data.draw(st.integers(0, 400))
    objects = sorted({o for o, _ in concerns})
    got = {(o, c, t) for (o, c), chunks in prompted(selection_db, objects, "floor", max_tokens=budget,
                                                    fixed_tokens=fixed).items() for t in chunks}
    assert got == budget_reference(concerns, mentions, texts, tokens, alpha, beta, fixed, budget)
    if for_prompts(graph_db).name == "plugin":  # its procedure's rows are the script's, whatever the options
        titles = ["Doc", "Ärzte – Leitlinie", "😀 notes", "心衰指南", "！ notes"]  # code point order differs from UTF-16
        selection_db.execute_query("""UNWIND $rows AS row MATCH (t:Chunk {id: row.t})
            MERGE (d:Document {id: row.title}) SET d.title = row.title MERGE (t)-[:FROM_DOCUMENT]->(d)
            WITH t, row WHERE row.path IS NOT NULL
            MERGE (s:Section {id: row.t + '-section'}) SET s.path = row.path, t.section_id = s.id""",
                                   rows=[{"t": t, "title": (title := data.draw(st.sampled_from(titles))),
                                          "path": data.draw(st.sampled_from([None, [title, "Teil ü"], ["Other", "Sub"]]))}
                                         for t in sorted({t for _, t in mentions})])
        options = data.draw(st.fixed_dictionaries({
            "selection": st.sampled_from(["floor", "paper"]), "max_per_concept": st.none() | st.integers(0, 3),
            "max_tokens": st.none() | st.integers(0, 400), "tokens_per_concept": st.none() | st.integers(0, 80)}))
        for o in objects:
            assert (prompt_material(graph_db, o, fixed_tokens=fixed, engine=Engine("plugin", "test"), **options)
                    == prompt_material(graph_db, o, fixed_tokens=fixed, engine=Engine("cypher", "test"), **options))


def three_strong_and_one_weak(driver) -> None:
    """One object, two concepts: c0 with three strong extracts, c1 with one weak one; selected."""
    clear(driver)
    concerns = {("o0", "c0"): [1, 0, 0], ("o0", "c1"): [0, 1, 0]}
    mentions = {("c0", "t0"): [1, 0, 0], ("c0", "t1"): [1, 1, 0], ("c0", "t2"): [1, 0, 1], ("c1", "t3"): [-1, 0, 0]}
    write_graph(driver, concerns, mentions)
    select(Graph(driver, "neo4j"), 0.5, 0.5)


def test_budget_never_takes_a_concepts_last_extract_while_another_has_two(selection_db):
    # c0 has three strong extracts, c1 one weak one: a tight budget empties c0 down to its best
    # before c1 loses its only extract, even though c1's is the weakest of all.
    three_strong_and_one_weak(selection_db)
    full = prompted(selection_db, ["o0"], "floor")
    assert len(full[("o0", "c0")]) == 3 and len(full[("o0", "c1")]) == 1
    sizes = []
    for budget in range(400, 0, -5):
        kept = prompted(selection_db, ["o0"], "floor", max_tokens=budget)
        counts = (len(kept.get(("o0", "c0"), {})), len(kept.get(("o0", "c1"), {})))
        if counts[1] == 0:
            assert counts[0] <= 1  # c1 lost its last extract only once c0 had one left
        sizes.append(counts)
    assert (3, 1) in sizes and (1, 1) in sizes and (0, 0) in sizes
    assert sizes == sorted(sizes, key=lambda c: (-c[0] - c[1], -c[1]))  # monotone: a smaller budget keeps less


def test_a_per_concept_budget_drops_extras_but_never_a_concepts_best_extract(selection_db):
    # The floor's promise: a per-concept allowance (the default budget) trims the extras down to
    # each concept's best extract however small it is; only an absolute max_tokens goes further.
    three_strong_and_one_weak(selection_db)
    best = prompted(selection_db, ["o0"], "floor", max_per_concept=1)
    for allowance in (0, 1, 10, 20):
        kept = prompted(selection_db, ["o0"], "floor", tokens_per_concept=allowance, fixed_tokens=0)
        assert kept == best  # every concept keeps exactly its best extract
    roomy = prompted(selection_db, ["o0"], "floor", tokens_per_concept=400, fixed_tokens=0)
    assert len(roomy[("o0", "c0")]) == 3
    assert prompted(selection_db, ["o0"], "floor", max_tokens=1, fixed_tokens=0) == {}


def test_select_concurrency_defaults_to_the_servers_processors(selection_db, neo4j_target, tmp_path):
    from tripartite.selection.run import server_concurrency

    processors = server_concurrency(Graph(selection_db, "neo4j"))
    jmx, _, _ = selection_db.execute_query("CALL dbms.queryJmx('java.lang:type=OperatingSystem') YIELD attributes "
                                           "RETURN attributes.AvailableProcessors.value AS n")
    assert processors == jmx[0]["n"] >= 1
    env = cli_env(neo4j_target, tmp_path, TRIPARTITE_SELECT_CONCURRENCY="1")
    assert CliRunner().invoke(cli, ["select", "--json"], env=env).exit_code == 0
    refused = CliRunner().invoke(cli, ["select"], env={**env, "TRIPARTITE_SELECT_CONCURRENCY": "many"})
    assert refused.exit_code != 0 and "TRIPARTITE_SELECT_CONCURRENCY='many' is not a whole number" in refused.output
    assert CliRunner().invoke(cli, ["select", "--concurrency", "0"], env=env).exit_code == 2


def test_the_first_store_is_converted_by_migrate_even_after_a_kill(neo4j_target, tmp_path):
    # A graph of the first store (one Evidence node per candidate, 60,000 of them), migrated up
    # to V011; `tripartite migrate` is killed in the middle of V012's batched deletes, and the
    # next one finishes: the old nodes are gone and the selection is the reference's, with no
    # LLM call (the scores come from the stored embeddings).
    import os
    import subprocess
    import sys

    from conftest import kill_when, migrations_before

    wipe(neo4j_target)
    older = migrations_before("V012", tmp_path)
    concerns = {("o0", "c0"): [1, 0, 0], ("o1", "c0"): [0, 1, 1], ("o1", "c1"): [1, 1, 0]}
    mentions = {("c0", "t0"): [1, 1, 0], ("c0", "t1"): [0, 0, 1], ("c1", "t1"): [1, 0, 1], ("c1", "t2"): [0, 1, 0]}
    with neo4j_target.driver() as driver:
        graph_db = Graph(driver, neo4j_target.database)
        migrations.migrate(graph_db, older)
        write_graph(driver, concerns, mentions)
        driver.execute_query("""CREATE (:SelectionState {id: 'current', state: 'finished', alpha: 0.5, beta: 0.3, inputs: 0})
            WITH 1 AS one UNWIND range(1, 60000) AS i
            CREATE (:Evidence {object_id: 'o' + (i % 2), concept_id: 'c0', chunk_id: 't' + i, w: 0.1, reason: 'alpha',
                               selected: true})""")
        env = {**os.environ, **cli_env(neo4j_target, tmp_path)}
        env.pop("TRIPARTITE_CONFIG")
        command = [sys.executable, "-m", "tripartite", "migrate"]
        old = "MATCH (e:Evidence) WHERE e.chunk_id IS NOT NULL RETURN count(e) AS n"
        kill_when(command, env, lambda: 0 < count(driver, old) < 60000, timeout=120)
        assert 0 < count(driver, old) < 60000  # killed halfway through V012
        finished = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
        assert finished.returncode == 0, finished.stderr
        assert "applied V012__selection_store_v2.cypher" in finished.stdout
        assert "converted the selection to its new store" in finished.stdout
        assert count(driver, old) == 0
        assert stored(driver) == reference(concerns, mentions, 0.5, 0.3)
        assert CliRunner().invoke(cli, ["prompt", "o1"], env=cli_env(neo4j_target, tmp_path)).exit_code == 0
        # Killed in the conversion's select, once its start was written (the state V012 leaves,
        # then what begin_run writes): prompts wait, and the next migrate runs it again.
        driver.execute_query("MATCH (s:SelectionState {id: 'current'}) SET s.state = 'converting'")
        graph_db.run("selection/begin_run", run="killed", alpha=0.5, beta=0.3, scope={"object_ids": None})
        assert CliRunner().invoke(cli, ["prompt", "o1"], env=cli_env(neo4j_target, tmp_path)).exit_code == 1
        again = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
        assert again.returncode == 0 and "converted the selection to its new store" in again.stdout, again
        assert count(driver, "MATCH (s:SelectionState) WHERE s.converting IS NOT NULL RETURN count(s)") == 0
        assert stored(driver) == reference(concerns, mentions, 0.5, 0.3)
        assert CliRunner().invoke(cli, ["prompt", "o1"], env=cli_env(neo4j_target, tmp_path)).exit_code == 0
