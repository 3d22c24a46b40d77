"""The explanation page at a million candidates: how fast an object's page answers (GET
/objects/ID, the whole HTML: the prompt, the explain query, P_c of the rejected candidates, the
cited chunks in context, the plots) from `tripartite ui` in its own process, on the selection benchmark's graph (bench/selection_bench.py,
the same data from the same seed), selected by the active engine (the procedure plugin where
the server has it).

    python bench/ui_bench.py [--objects 250] [--concepts 25] [--per-object 20] [--chunks-per-concept 200]
                             [--pages 40] [--rounds 3]

Runs against a throwaway local Neo4j (or --uri, kept); `tripartite ui` serves on a loopback port
and is asked over real HTTP, one request at a time. The first request
of each page is timed apart (the server compiles the queries' plans then); the figures are
the later rounds. Checks, printed as "same" or "DIFFERS": every plot's bars add up to its
concept's n, and every selected candidate on the page is the Evidence the store holds."""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import statistics
import time
import urllib.request
from contextlib import nullcontext

import numpy as np
from neo4j import GraphDatabase

from selection_bench import bench_data, write_candidates
from throwaway import free_port, throwaway_server

from tripartite.infra import migrations
from tripartite.infra.config import load_settings
from tripartite.infra.graph import Graph
from tripartite.infra.paths import migrations_dir
from tripartite.selection import select
from tripartite.selection.engine import choose


def fetch(url: str) -> tuple[float, int, bytes]:
    started = time.perf_counter()
    with urllib.request.urlopen(url, timeout=120) as response:
        body = response.read()
        return (time.perf_counter() - started) * 1000, response.status, body


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--objects", type=int, default=250)
    parser.add_argument("--concepts", type=int, default=25)
    parser.add_argument("--per-object", type=int, default=20)
    parser.add_argument("--chunks-per-concept", type=int, default=200)
    parser.add_argument("--chunks", type=int, default=2000)
    parser.add_argument("--pages", type=int, default=40, help="objects whose page is asked for")
    parser.add_argument("--rounds", type=int, default=3, help="timed requests per page after the first")
    parser.add_argument("--uri", default=None, help="an empty local Neo4j to build the graph in and keep (a second "
                                                    "run on it reuses the graph); default: a throwaway server")
    args = parser.parse_args()
    rng = np.random.default_rng(11)  # the selection benchmark's data
    settings = load_settings(env={})
    concepts, chunks, objects, mentions, per_object, concern_vec = bench_data(rng, args)
    candidates = sum(len(mentions[c][0]) for o in objects for c in per_object[o])

    with (nullcontext((args.uri, None)) if args.uri else throwaway_server(settings)) as (uri, _home):
        with GraphDatabase.driver(uri, auth=None, notifications_min_severity="OFF") as driver:
            graph = Graph(driver, "neo4j")
            migrations.migrate(graph, migrations_dir())
            built = driver.execute_query("MATCH (o:Object {kind: 'bench'}) RETURN count(o) AS n").records[0]["n"]
            engine = choose(graph)
            started = time.perf_counter()
            reused = built == len(objects)  # a kept graph is reused as it is
            if not reused:
                write_candidates(driver, concepts, chunks, objects, mentions, concern_vec)
                select(graph, 0.9, 0.5, engine=engine)
            selected_in = time.perf_counter() - started
            evidence = {(r["o"], r["c"]): r["ids"] for r in driver.execute_query(
                "MATCH (e:Evidence) RETURN e.object_id AS o, e.concept_id AS c, e.chunk_ids AS ids").records}

        # The page's server as a user runs it, in its own process (a client in the same process
        # would share its interpreter lock and slow it).
        port = free_port()
        env = {**os.environ, "NEO4J_URI": uri, "TRIPARTITE_CONFIG": ""}
        server = subprocess.Popen([sys.executable, "-m", "tripartite", "ui", "--port", str(port)], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                fetch(f"{base}/static/ui.css")
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"tripartite ui did not start: {server.stderr.read().decode()[-500:]}")
                time.sleep(0.1)
        pages = objects[:: max(1, len(objects) // args.pages)][: args.pages]
        first, later, sizes, bars_ok, evidence_ok = [], [], [], True, True
        try:
            for oid in pages:
                ms, status, body = fetch(f"{base}/objects/{oid}")
                assert status == 200, body[:300]
                first.append(ms)
                sizes.append(len(body))
            for _ in range(args.rounds):
                for oid in pages:
                    later.append(fetch(f"{base}/objects/{oid}")[0])
            for oid in pages[:10]:
                view = json.loads(fetch(f"{base}/api/objects/{oid}")[2])
                for c in view["concepts"]:
                    bars_ok &= sum(b["count"] for b in c["bars"]) == c["n"]
                    evidence_ok &= [s["chunk_id"] for s in c["selected"]] == evidence.get((oid, c["concept_id"]), [])
        finally:
            server.terminate()
            server.wait(10)

    later.sort()
    p90 = later[int(0.9 * (len(later) - 1))]
    print(f"candidates: {candidates:,} ({args.objects} objects x {args.per_object} concepts x "
          f"{args.chunks_per_concept} chunks); " + ("the graph and selection kept from an earlier run" if reused else
                                                    f"selected by the {engine.name} engine in {selected_in:.1f} s"))
    print("| GET /objects/ID | p50 ms | p90 ms | max ms | requests |")
    print("|---|---:|---:|---:|---:|")
    print(f"| first request of a page | {statistics.median(first):.0f} | "
          f"{sorted(first)[int(0.9 * (len(first) - 1))]:.0f} | {max(first):.0f} | {len(first)} |")
    print(f"| later requests | {statistics.median(later):.0f} | {p90:.0f} | {max(later):.0f} | {len(later)} |")
    print(f"page size: median {statistics.median(sizes) / 1024:.0f} KiB")
    print(f"every plot's bars add up to its concept's n: {'same' if bars_ok else 'DIFFERS'}")
    print(f"the selected candidates on the page are the stored Evidence: {'same' if evidence_ok else 'DIFFERS'}")


if __name__ == "__main__":
    main()
