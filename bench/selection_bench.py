"""Selection benchmark at a million candidates: the full recompute on each path (the Cypher
scripts and the procedure plugin), a re-run with nothing changed, one new object at a time, a
change of alpha or beta, prompt building, and what the selection adds to the store; each next
to the NumPy reference on the same data, which the whole graph must equal after the full runs,
the additions and the removals.

    python bench/selection_bench.py [--objects 250] [--concepts 25] [--per-object 20] [--chunks-per-concept 200]
                                    [--new-objects 5] [--removed-objects 3] [--full-runs 5]

Candidates = objects x per-object concepts x chunks per concept (defaults: 1,000,000). Runs
against a throwaway local Neo4j (with the plugin `tripartite server start` builds); prints a
table; asserts nothing.

How the results are compared: Neo4j's vector.similarity.cosine works in float32, summing with or
without fused multiply-adds depending on the CPU (Lucene's choice), so about one score in 400
differs from NumPy's in the 5th decimal, the precision w is stored at; a score at a threshold can
then fall on the other side. So the scores are compared to within one unit of the 5th decimal
(and how many differ is printed), and the classification (P_c, alpha, the blanket, the floor) is
compared exactly: NumPy's from the scores the server stored must equal the server's own. The two
paths are compared exactly with each other. The tests use vectors whose cosines lie away from
rounding boundaries, and compare everything exactly.

Timing: each full recompute starts from an empty selection store on a server that has run one
selection already (the first run after a start also compiles the server's query plans and
loads the plugin's classes: it is printed apart). Each path's full recompute is timed five
times and the median reported, and so is the NumPy reference's: the JVM is still compiling
the Cypher runtime's hot code in the first of them (on this project's machine the Cypher
path's first took up to twice as long as its third, and with three runs the median still
fell on a run of the warm-up). All five are printed.
"""
from __future__ import annotations

import argparse
import json
import statistics
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from neo4j import GraphDatabase

from throwaway import throwaway_server

from tripartite.infra import migrations
from tripartite.infra.config import load_settings
from tripartite.infra.graph import Graph
from tripartite.infra.paths import migrations_dir
from tripartite.infra.server.local import LocalServer
from tripartite.infra import tokens
from tripartite.selection import select, tripartite_prompt
from tripartite.selection.prompt import quoted_sentences
from tripartite.selection.run import remove_objects
from tripartite.selection.engine import Engine, choose

DIMS = 384


def unit(rng, n):
    v = rng.standard_normal((n, DIMS)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def bench_data(rng, args):
    """The benchmark's data from `rng` (seed 11): concepts, chunks, objects, each concept's
    chunks with its extracts' vectors, each object's concepts, and the objects' extract vectors."""
    concepts = [f"k{i:02d}" for i in range(args.concepts)]
    chunks = [f"t{i:05d}" for i in range(args.chunks)]
    objects = [f"o{i:04d}" for i in range(args.objects)]
    mentions = {c: (sorted(rng.choice(chunks, args.chunks_per_concept, replace=False).tolist()), None) for c in concepts}
    mentions = {c: (ids, unit(rng, len(ids))) for c, (ids, _) in mentions.items()}
    per_object = {o: sorted(rng.choice(concepts, args.per_object, replace=False).tolist()) for o in objects}
    concern_vec = {(o, c): v for o in objects for c, v in zip(per_object[o], unit(rng, args.per_object))}
    return concepts, chunks, objects, mentions, per_object, concern_vec


def write_candidates(driver, concepts, chunks, objects, mentions, concern_vec) -> None:
    """The benchmark's graph: concepts, chunks in documents of 100 (one section each), objects,
    each concept's extracts on its chunks and each object's on its concepts, with their vectors."""
    driver.execute_query("UNWIND $ids AS id CREATE (:Concept {id: id, name: id})", ids=concepts)
    driver.execute_query("UNWIND $ids AS id CREATE (:Chunk {id: id, index: toInteger(substring(id, 1)), "
                         "document_id: 'd'})", ids=chunks)
    driver.execute_query("UNWIND $ids AS id CREATE (:Object {id: id, kind: 'bench', text: id})", ids=objects)
    # A lexical graph around the chunks, so prompts carry real references: 100 chunks
    # per document, one section per document.
    driver.execute_query("""
        MATCH (t:Chunk) WITH t, toInteger(substring(t.id, 1)) / 100 AS n
        MERGE (d:Document {id: 'doc' + toString(n)}) ON CREATE SET d.title = 'Document ' + toString(n)
        MERGE (s:Section {id: 'sec' + toString(n)}) ON CREATE SET s.path = [d.title, 'Section']
        SET t.section_id = s.id, t.document_id = d.id
        CREATE (t)-[:FROM_DOCUMENT]->(d)""")
    batch = [{"c": c, "t": t, "v": v.tolist()} for c in concepts for t, v in zip(*mentions[c])]
    for i in range(0, len(batch), 1000):
        driver.execute_query("""UNWIND $rows AS row MATCH (c:Concept {id: row.c}), (t:Chunk {id: row.t})
            CREATE (c)-[r:MENTIONED_IN {summary: 'extract of ' + row.c + ' in ' + row.t}]->(t)
            WITH r, row CALL db.create.setRelationshipVectorProperty(r, 'embedding', row.v)""", rows=batch[i:i + 1000])
    add_concerns(driver, [{"o": o, "c": c, "v": v.tolist()} for (o, c), v in concern_vec.items()])


def add_concerns(driver, items) -> None:
    """Objects' extracts on their concepts, with their vectors."""
    for i in range(0, len(items), 1000):
        driver.execute_query("""UNWIND $rows AS row MATCH (o:Object {id: row.o}), (c:Concept {id: row.c})
            CREATE (o)-[r:CONCERNS {summary: row.o + ' about ' + row.c}]->(c)
            WITH r, row CALL db.create.setRelationshipVectorProperty(r, 'embedding', row.v)""",
                             rows=items[i:i + 1000])


def numpy_select(concerns, mentions, alpha, beta, only_concepts=None):
    """The timed reference: w, P_c, alpha, blanket, vectorised. concerns: {concept: (object ids,
    vectors)}, mentions: {concept: (chunk ids, vectors)}."""
    result = {}
    for c, (objs, ov) in concerns.items():
        if only_concepts is not None and c not in only_concepts:
            continue
        chunks, cv = mentions[c]
        w = np.round(ov @ cv.T, 5)                      # (objects, chunks)
        flat = np.sort(w.ravel())
        p = np.searchsorted(flat, w, side="right") / flat.size
        result[c] = (objs, chunks, w, p, p > alpha)
    anchors = {}
    for c, (objs, chunks, w, p, sel) in result.items():
        for i, j in zip(*np.nonzero(sel)):
            anchors.setdefault(objs[i], set()).add(chunks[j])
    beta_count = 0
    for c, (objs, chunks, w, p, sel) in result.items():
        for i, o in enumerate(objs):
            a = anchors.get(o)
            if a:
                mask = (~sel[i]) & (p[i] > beta) & np.array([t in a for t in chunks])
                beta_count += int(mask.sum())
    return result, beta_count


def numpy_classify(scores, alpha, beta):
    """For the comparison (not timed): from scores {concept: (objects, chunks, w)}, each pair's
    selected candidates as the store keeps them: (object, concept) -> (chunk ids, w, reasons),
    best first (highest w, then the smallest chunk id), reason alpha | beta | floor."""
    chosen, anchors, percentiles = {}, {}, {}
    for c, (objs, chunks, w) in scores.items():
        p = np.searchsorted(np.sort(w.ravel()), w, side="right") / w.size
        percentiles[c] = p
        for i, j in zip(*np.nonzero(p > alpha)):
            anchors.setdefault(objs[i], set()).add(chunks[j])
    for c, (objs, chunks, w) in scores.items():
        p = percentiles[c]
        for i, o in enumerate(objs):
            best = int(np.argmax(w[i]))  # the first of equal maxima: chunks are sorted
            picked = []
            for j, t in enumerate(chunks):
                reason = ("alpha" if p[i, j] > alpha else "beta" if p[i, j] > beta and t in anchors.get(o, ())
                          else "floor" if j == best else None)
                if reason:
                    picked.append((-w[i, j], t, reason))
            picked.sort()
            chosen[(o, c)] = (tuple(t for _, t, _ in picked), tuple(-x for x, _, _ in picked),
                              tuple(r for _, _, r in picked))
    return chosen


def paper(selection: dict) -> dict:
    """The paper's selection within a store's: (object, concept, chunk) -> alpha | beta."""
    return {(o, c, t): r for (o, c), (chunks, _, reasons) in selection.items() for t, r in zip(chunks, reasons)
            if r != "floor"}


def stored_selection(driver) -> dict:
    records, _, _ = driver.execute_query("MATCH (e:Evidence) RETURN e.object_id AS o, e.concept_id AS c, "
                                         "e.chunk_ids AS t, e.w AS w, e.reasons AS r")
    return {(r["o"], r["c"]): (tuple(r["t"]), tuple(r["w"]), tuple(r["r"])) for r in records}


def clear_store(driver) -> None:
    """An empty selection store: what a first full select starts from."""
    with driver.session() as session:
        for query in ("MATCH (e:Evidence) CALL (e) { DELETE e } IN TRANSACTIONS OF 10000 ROWS",
                      "MATCH (b:ScoreBin) CALL (b) { DELETE b } IN TRANSACTIONS OF 10000 ROWS",
                      "MATCH (s:ScoreDistribution) DELETE s",
                      "MATCH ()-[oc:CONCERNS]->() CALL (oc) { REMOVE oc.scores } IN TRANSACTIONS OF 10000 ROWS",
                      "MATCH (s:SelectionState) DELETE s"):
            session.run(query).consume()


def store_bytes(home: Path) -> int:
    """The database's store files (not its transaction logs), after a clean shutdown."""
    store = home / "data" / "databases" / "neo4j"
    return sum(f.stat().st_size for f in store.rglob("*") if f.is_file())


def timed(work) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--objects", type=int, default=250)
    parser.add_argument("--concepts", type=int, default=25)
    parser.add_argument("--per-object", type=int, default=20)
    parser.add_argument("--chunks-per-concept", type=int, default=200)
    parser.add_argument("--chunks", type=int, default=2000)
    parser.add_argument("--prompts", type=int, default=40)
    parser.add_argument("--new-objects", type=int, default=5)
    parser.add_argument("--removed-objects", type=int, default=3)
    parser.add_argument("--full-runs", type=int, default=5, help="full recomputes timed per path (median)")
    args = parser.parse_args()
    rng = np.random.default_rng(11)
    settings = load_settings(env={})
    concepts, chunks, objects, mentions, per_object, concern_vec = bench_data(rng, args)
    candidates = sum(len(mentions[c][0]) for o in objects for c in per_object[o])
    times: dict[str, float] = {}
    steps: dict[str, list] = {}

    def record(name):
        return lambda step, seconds: steps.setdefault(name, []).append(f"{step} {seconds:.2f}")

    with throwaway_server(settings) as (uri, home):
        recorded = json.loads((home / "run" / "server.json").read_text())
        local = LocalServer(replace(settings.server, home=home, bolt_port=recorded["bolt_port"],
                                    http_port=recorded["http_port"]), settings.cache_dir)

        def store_after_restart() -> int:
            """The store's size after a clean shutdown (Community Edition has no checkpoint
            procedure); the server starts again, its plans and classes cold."""
            local.stop()
            size = store_bytes(home)
            local.start()
            return size

        with GraphDatabase.driver(uri, auth=None, notifications_min_severity="OFF") as driver:
            graph = Graph(driver, "neo4j")
            migrations.migrate(graph, migrations_dir())
            started = time.perf_counter()
            write_candidates(driver, concepts, chunks, objects, mentions, concern_vec)
            setup = time.perf_counter() - started
            without = store_after_restart()
            active = choose(graph)
            cypher, plugin = Engine("cypher", "bench"), Engine("plugin", "bench")
            has_plugin = active.name == "plugin"
            times["cold"] = timed(lambda: select(graph, 0.9, 0.5, engine=active))  # compiles plans, loads classes
            with_selection = store_after_restart()  # the store with one selection in it

            results = {}
            full_runs: dict[str, list[float]] = {}
            for engine in ([cypher, plugin] if has_plugin else [cypher]):
                select(graph, 0.9, 0.5, engine=engine)  # warm: plans compiled, classes loaded
                # Each path's full run from an empty store, --full-runs times: the first ones
                # still run code the JVM is compiling, so the median is the steady state.
                for _ in range(args.full_runs):
                    clear_store(driver)
                    full_runs.setdefault(engine.name, []).append(timed(lambda: select(
                        graph, 0.9, 0.5, engine=engine, on_step=record(f"full ({engine.name})"))))
                    results.setdefault(engine.name, []).append(stored_selection(driver))
                times[engine.name] = statistics.median(full_runs[engine.name])
            paths_agree = len({tuple(sorted(r.items())) for runs in results.values() for r in runs}) == 1
            times["rerun"] = timed(lambda: select(graph, 0.9, 0.5, engine=active, on_step=record("re-run")))
            times["alpha"] = timed(lambda: select(graph, 0.8, 0.5, object_ids=[], engine=active,
                                                  on_step=record("alpha 0.8")))
            times["alpha back"] = timed(lambda: select(graph, 0.9, 0.5, object_ids=[], engine=active,
                                                       on_step=record("alpha 0.9")))
            times["beta"] = timed(lambda: select(graph, 0.9, 0.6, object_ids=[], engine=active,
                                                 on_step=record("beta 0.6")))
            times["beta back"] = timed(lambda: select(graph, 0.9, 0.5, object_ids=[], engine=active,
                                                      on_step=record("beta 0.5")))

            by_concept: dict[str, tuple[list, list]] = {}
            for (o, c), v in concern_vec.items():
                by_concept.setdefault(c, ([], []))
                by_concept[c][0].append(o)
                by_concept[c][1].append(v)
            np_concerns = {c: (objs, np.stack(vs)) for c, (objs, vs) in by_concept.items()}
            np_full = statistics.median(timed(lambda: numpy_select(np_concerns, mentions, 0.9, 0.5))
                                        for _ in range(args.full_runs))

            # New objects, each scored incrementally on its own.
            incremental, np_incremental = [], []
            for n in range(args.new_objects):
                new = f"o_new{n}"
                new_concepts = sorted(rng.choice(concepts, args.per_object, replace=False).tolist())
                driver.execute_query("CREATE (:Object {id: $id, kind: 'bench', text: $id})", id=new)
                new_vecs = unit(rng, len(new_concepts))
                add_concerns(driver, [{"o": new, "c": c, "v": v.tolist()} for c, v in zip(new_concepts, new_vecs)])
                incremental.append(timed(lambda: select(graph, 0.9, 0.5, object_ids=[new], engine=active,
                                                        on_step=record("incremental"))))
                for c, v in zip(new_concepts, new_vecs):
                    objs, vs = np_concerns[c]
                    np_concerns[c] = (objs + [new], np.vstack([vs, v]))
                np_incremental.append(timed(lambda: numpy_select(np_concerns, mentions, 0.9, 0.5,
                                                                 only_concepts=set(new_concepts))))

            # Objects removed (as `objects remove` does), then the select that rebuilds the
            # distributions they were in.
            gone = objects[:args.removed_objects]
            present = objects[args.removed_objects:]
            remove_objects(graph, gone)
            times["removal"] = timed(lambda: select(graph, 0.9, 0.5, object_ids=[], engine=active,
                                                    on_step=record("after removal")))
            for c, (objs, vs) in list(np_concerns.items()):
                keep = [i for i, o in enumerate(objs) if o not in gone]
                np_concerns[c] = ([objs[i] for i in keep], vs[keep])
            removed_candidates = sum(args.chunks_per_concept for o in gone for _ in per_object[o])

            # Against NumPy on the whole graph: the scores to within float32's reach, the
            # classification exactly (see the module doc).
            records, _, _ = driver.execute_query(
                "MATCH (o:Object)-[oc:CONCERNS]->(k:Concept) MATCH (s:ScoreDistribution {concept_id: k.id}) "
                "RETURN o.id AS o, k.id AS c, oc.scores AS w, s.chunks AS chunks")
            server_scores: dict[str, tuple[list, list, list]] = {}
            for r in records:
                entry = server_scores.setdefault(r["c"], ([], r["chunks"], []))
                entry[0].append(r["o"])
                entry[2].append(r["w"])
            worst, off, total = 0.0, 0, 0
            for c, (objs, chunks_c, rows) in list(server_scores.items()):
                mine = np.array(rows)
                ids, vectors = np_concerns[c]
                theirs = np.round(vectors[[ids.index(o) for o in objs]] @ mentions[c][1].T, 5).astype(np.float64)
                assert list(chunks_c) == list(mentions[c][0])
                worst = max(worst, float(np.abs(mine - theirs).max()))
                off += int((np.abs(mine - theirs) > 5e-6).sum())  # a unit is 1e-5, give or take float32's 1e-8
                total += mine.size
                server_scores[c] = (objs, chunks_c, mine)
            scores_agree = worst < 1.5e-5 and total == candidates - removed_candidates + sum(
                args.chunks_per_concept * args.per_object for _ in range(args.new_objects))
            expected = numpy_classify(server_scores, 0.9, 0.5)
            got = stored_selection(driver)
            agree = paper(got) == paper(expected)
            floor_agrees = got == expected
            selected = sum(len(v[0]) for v in expected.values())

            # Warm-up on other objects' prompts, as a server that has served some: the query
            # plans compiled, the plugin's code compiled by the JVM, this process's caches of
            # split sentences and token counts filled with the extracts those prompts share.
            for o in present[-args.prompts:]:
                tripartite_prompt(graph, o, "Q?")
            # The prompt as text (what reaches an LLM), and as JSON with each extract's P_c(w).
            timings, with_p, cited = [], [], []
            for o in present[:args.prompts]:
                started = time.perf_counter()
                built = tripartite_prompt(graph, o, "Q?", percentiles=False)
                timings.append(time.perf_counter() - started)
                cited.append(sum(len(c["evidence"]) for c in built["concepts"]))
                with_p.append(timed(lambda: tripartite_prompt(graph, o, "Q?")))
            p50, p95 = statistics.median(timings), float(np.percentile(timings, 95))
            # The same prompts as a one-shot process builds them: its caches empty.
            one_shot = []
            for o in present[:args.prompts]:
                quoted_sentences.cache_clear()
                tokens.part_tokens.cache_clear()
                one_shot.append(timed(lambda: tripartite_prompt(graph, o, "Q?", percentiles=False)))
            result, _ = numpy_select(np_concerns, mentions, 0.9, 0.5)
            np_timings = []
            for o in present[:args.prompts]:
                started = time.perf_counter()
                picked = []
                for c in per_object[o]:
                    objs, chunks_c, w, p, sel = result[c]
                    i = objs.index(o)
                    picked.append([(chunks_c[j], w[i, j], p[i, j]) for j in np.nonzero(sel[i])[0]])
                np_timings.append(time.perf_counter() - started)
            np_p50 = statistics.median(np_timings)

    all_candidates = total
    print(f"\nSelection benchmark: {candidates:,} candidates ({args.objects} objects x {args.per_object} concepts x "
          f"{args.chunks_per_concept} chunks), 384-dim extracts; graph written in {setup:.1f} s; selection steps by "
          f"{active.reason}\n")
    print(f"After the full runs, {args.new_objects} incremental additions and {len(gone)} removals, on the whole graph "
          f"({all_candidates:,} candidates):\n")
    print(f"- scores: Cypher's {'agree with' if scores_agree else 'DIFFER FROM'} NumPy's to within 1e-5 "
          f"({off:,} of {all_candidates:,} differ in the 5th decimal, at most by {worst:.0e}: float32 sums)")
    print(f"- the paper's selection: the server's {'equals' if agree else 'DIFFERS FROM'} NumPy's from the same scores")
    print(f"- the floor (default selection): the server's {'equals' if floor_agrees else 'DIFFERS FROM'} NumPy's "
          f"({selected:,} candidates selected in all)")
    if has_plugin:
        print(f"- the two paths: the plugin's full runs {'equal' if paths_agree else 'DIFFER FROM'} the Cypher scripts'")
    print(f"\nstore: {(with_selection - without) / candidates:.0f} bytes per candidate "
          f"({(with_selection - without) / 2**20:,.1f} MiB that the selection adds to a store of "
          f"{with_selection / 2**20:,.1f} MiB)\n")
    print(f"Prompts cite {statistics.median(cited):.0f} selected extracts at the median.\n")
    inc50 = statistics.median(incremental)
    print("| step | server | NumPy reference | ratio | target |")
    print("|---|---:|---:|---:|---|")
    def runs_of(name: str) -> str:
        return ", ".join(f"{t:.2f}" for t in full_runs[name])

    print(f"| full recompute (cypher) | {times['cypher']:.2f} s | {np_full:.2f} s | {times['cypher'] / np_full:.1f}x | "
          f"<= 20x |")
    if has_plugin:
        print(f"| full recompute (plugin) | {times['plugin']:.2f} s | {np_full:.2f} s | "
              f"{times['plugin'] / np_full:.1f}x | <= 5x |")
    print(f"| first full select after the server started ({active.name}) | {times['cold']:.2f} s | {np_full:.2f} s | "
          f"{times['cold'] / np_full:.1f}x | |")
    print(f"| full re-run, nothing changed ({active.name}) | {times['rerun']:.2f} s | {np_full:.2f} s | "
          f"{times['rerun'] / np_full:.1f}x | |")
    print(f"| one new object, incremental (median of {len(incremental)}; max) | {inc50:.2f} s; {max(incremental):.2f} s | "
          f"{statistics.median(np_incremental):.2f} s | {inc50 / statistics.median(np_incremental):.1f}x | <= 0.5 s |")
    print(f"| {len(gone)} objects removed, then select (their concepts' distributions rebuilt) | "
          f"{times['removal']:.2f} s | | | |")
    print(f"| alpha 0.9 to 0.8, reclassification only (and back) | {times['alpha']:.2f} s ({times['alpha back']:.2f} s) "
          f"| | | <= 2 s |")
    print(f"| beta 0.5 to 0.6, reclassification only (and back) | {times['beta']:.2f} s ({times['beta back']:.2f} s) "
          f"| | | <= 2 s |")
    print(f"| prompt build p50 / p95 | {p50 * 1000:.0f} / {p95 * 1000:.0f} ms | {np_p50 * 1000:.2f} ms | "
          f"{p50 / np_p50:.0f}x | <= 50 ms p50 |")
    print(f"| prompt build p50, a one-shot process (no cached sentences or token counts) | "
          f"{statistics.median(one_shot) * 1000:.0f} ms | | | |")
    print(f"| prompt with P_c(w) per extract (JSON) p50 | {statistics.median(with_p) * 1000:.0f} ms | | | |")
    print(f"\nFull recomputes, each from an empty store (the median above; both references are medians of "
          f"{args.full_runs}): cypher {runs_of('cypher')} s" + (f"; plugin {runs_of('plugin')} s" if has_plugin else ""))
    print("\nSteps (seconds):\n")
    for name, timings_of in steps.items():
        print(f"- {name}: " + ", ".join(timings_of))


if __name__ == "__main__":
    main()
