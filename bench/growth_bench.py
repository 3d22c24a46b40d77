"""How cost grows: the whole pipeline at three or more sizes, with each step's growth exponent.

    python bench/growth_bench.py [--sizes 10000,100000,1000000,10000000] [--concurrency 1] [--save rows.json]
    python bench/growth_bench.py --load rows.json      # the tables again from saved measurements

Each size multiplies the chunks and the objects by the square root of its factor, so the
candidates (object, concept, chunk) grow by the factor. Documents and anamneses are generated
from the cardiology plugin's concept names (each chunk names 5 concepts, each object 10), so
the offline extractive provider finds them as a model would. Per size: ingest with chunk
embeddings, the analysis' dry run (LLM calls and exact prompt tokens), the offline analysis'
wall time, a full select (on the path select chooses, at the server's processors and at
--concurrency, and on the Cypher scripts for comparison),
one new object end to end (added, analysed, selected incrementally) and prompt building.
The exponent b of each step is the least-squares slope of log(time) against
log(candidates): time ~ candidates^b. The capacity figures extrapolate each step on its own
from the two largest sizes (where fixed costs matter least), the select by its warm run. Runs against a throwaway local Neo4j per size (so
every size starts cold and empty); prints tables; asserts nothing.
"""
from __future__ import annotations

import argparse
import json
import math
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
from neo4j import GraphDatabase

from selection_bench import clear_store
from throwaway import throwaway_server

from tripartite.analysis import Analyzer, dry_run_figures
from tripartite.analysis.extractive import ExtractiveProvider
from tripartite.infra import migrations
from tripartite.infra.config import load_settings
from tripartite.infra.embeddings import MiniLMEmbedder
from tripartite.infra.graph import Graph
from tripartite.infra.llm.cache import AnswerCache
from tripartite.infra.llm.runner import LLMRunner
from tripartite.infra.paths import migrations_dir, plugins_dir
from tripartite.lexical.embed import embed_chunks
from tripartite.lexical.ingest import ingest_paths
from tripartite.lexical.token_counters import WordPieceCounter
from tripartite.objects.reader import read_object
from tripartite.objects.store import add_objects
from tripartite.ontology.reader import parse_ontology
from tripartite.ontology.store import load_ontology
from tripartite.selection import select, tripartite_prompt
from tripartite.selection.engine import Engine, choose
from tripartite.selection.run import server_concurrency

BASE_CHUNKS, BASE_OBJECTS = 100, 50  # 10,000 candidates: 27 concepts, 5 per chunk, 10 per object
CONCEPTS_PER_CHUNK, CONCEPTS_PER_OBJECT, SECTIONS_PER_DOCUMENT = 5, 10, 50
STEPS = ("ingest + embed", "analysis (offline)", "select, full (cold)", "select, full, warm",
         "select, full, warm at --concurrency", "select, full, warm, Cypher scripts",
         "one new object (add, analyse, select)", "prompt build p50")


def write_corpus(folder: Path, chunks: int, objects: int, names: list[str], rng) -> tuple[list[Path], list[Path]]:
    """Guidelines of one short section per chunk, and anamneses, naming the concepts."""
    docs, notes = folder / "guidelines", folder / "anamneses"
    docs.mkdir(parents=True)
    notes.mkdir()
    documents = []
    for d in range(math.ceil(chunks / SECTIONS_PER_DOCUMENT)):
        lines = [f"# Guideline {d}\n"]
        for s in range(min(SECTIONS_PER_DOCUMENT, chunks - d * SECTIONS_PER_DOCUMENT)):
            picked = rng.choice(names, CONCEPTS_PER_CHUNK, replace=False)
            sentences = " ".join(f"In {name.lower()}, review the findings of visit {s} and agree the next step "
                                 f"with the patient." for name in picked)
            lines.append(f"## Topic {d}.{s}\n\n{sentences}\n")
        path = docs / f"guideline-{d:04d}.md"
        path.write_text("\n".join(lines), encoding="utf-8")
        documents.append(path)
    return documents, [write_note(notes, n, names, rng) for n in range(objects)]


def write_note(folder: Path, n: int, names: list[str], rng) -> Path:
    picked = rng.choice(names, CONCEPTS_PER_OBJECT, replace=False)
    path = folder / f"patient-{n:05d}.md"
    path.write_text(f"# Patient {n}\n\n" + " ".join(f"The patient reports {name.lower()} since {2000 + i}."
                                                   for i, name in enumerate(picked)) + "\n", encoding="utf-8")
    return path


def timed(work):
    started = time.perf_counter()
    result = work()
    return result, time.perf_counter() - started


def one_size(settings, factor: float, names, ontology, compare_concurrency: int) -> dict:
    rng = np.random.default_rng(7)
    chunks, objects = round(BASE_CHUNKS * math.sqrt(factor)), round(BASE_OBJECTS * math.sqrt(factor))
    folder = Path(tempfile.mkdtemp(prefix="tripartite-growth-"))
    documents, notes = write_corpus(folder, chunks, objects, names, rng)
    row: dict = {"chunks": chunks, "objects": objects}
    with throwaway_server(settings) as (uri, home):
        with GraphDatabase.driver(uri, auth=None, notifications_min_severity="OFF") as driver:
            graph = Graph(driver, "neo4j")
            migrations.migrate(graph, migrations_dir())
            counter = WordPieceCounter(settings.cache_dir)
            embedder = MiniLMEmbedder(settings.cache_dir)
            load_ontology(graph, ontology)

            def ingest():
                ingest_paths(graph, [str(p) for p in documents], counter, 200, 64 * 2**20)
                embed_chunks(graph, embedder)
            _, row["ingest + embed"] = timed(ingest)
            add_objects(graph, [read_object(p, "anamnesis") for p in notes])

            runner = LLMRunner(ExtractiveProvider(embedder), AnswerCache(home / "cache.sqlite"))
            analyzer = Analyzer(graph, embedder, runner)
            plan = analyzer.plan()
            figures = dry_run_figures(plan, lambda task: False)
            row["llm calls"] = figures["chunk"]["calls"] + figures["object"]["calls"]
            row["prompt tokens"] = figures["chunk"]["prompt_tokens"] + figures["object"]["prompt_tokens"]
            _, row["analysis (offline)"] = timed(lambda: analyzer.execute(plan))

            row["server processors"] = server_concurrency(graph)
            report, row["select, full (cold)"] = timed(lambda: select(graph, 0.9, 0.5))
            row["candidates"] = report.candidates
            # Full runs again from no scores, warm: at the comparison concurrency and at the
            # server's processors (the default).
            # The path `select` chooses (the plugin where the server has it), and the Cypher scripts.
            active, cypher = choose(graph), Engine("cypher", "bench")
            row["engine"] = active.name
            if active.name != "cypher":
                select(graph, 0.9, 0.5, engine=cypher)  # untimed: the server compiles the scripts' plans
            for name, concurrency, engine in (("select, full, warm at --concurrency", compare_concurrency, active),
                                              ("select, full, warm, Cypher scripts", None, cypher),
                                              ("select, full, warm", None, active)):
                clear_store(driver)
                _, row[name] = timed(lambda: select(graph, 0.9, 0.5, concurrency=concurrency, engine=engine))

            def new_object():
                path = write_note(folder / "anamneses", objects, names, rng)
                add_objects(graph, [read_object(path, "anamnesis")])
                analyzer.execute(analyzer.plan())
                select(graph, 0.9, 0.5, object_ids=[f"patient-{objects:05d}"])
            _, row["one new object (add, analyse, select)"] = timed(new_object)

            ids = [f"patient-{n:05d}" for n in range(min(objects, 20))]
            for object_id in ids[-3:]:  # warm-up: the server compiles the query plans
                tripartite_prompt(graph, object_id, "Q?")
            timings = [timed(lambda: tripartite_prompt(graph, o, "Q?", percentiles=False))[1] for o in ids]
            row["prompt build p50"] = statistics.median(timings)
            row["evidence nodes"] = driver.execute_query("MATCH (e:Evidence) RETURN count(e) AS n").records[0]["n"]

    row["store MB"] = store_bytes(home) / 2**20  # after the clean shutdown's checkpoint
    return row


def store_bytes(home: Path) -> int:
    """The database's store files (transaction logs, preallocated in chunks, left out)."""
    return sum(f.stat().st_size for f in (home / "data" / "databases" / "neo4j").rglob("*") if f.is_file())


def exponent(sizes: list[float], values: list[float]) -> float:
    """Least-squares slope of log(value) against log(size)."""
    x, y = np.log(sizes), np.log(np.maximum(values, 1e-6))
    return float(np.polyfit(x, y, 1)[0])


EXTRAPOLATED = ("ingest + embed", "analysis (offline)", "select, full, warm")


def extrapolate(rows: list[dict], candidates: float) -> float:
    """Seconds for ingest, offline analysis and a full select at `candidates`, each step by
    its own power law through the two largest sizes."""
    small, large = rows[-2], rows[-1]
    total = 0.0
    for step in EXTRAPOLATED:
        b = exponent([small["candidates"], large["candidates"]], [small[step], large[step]])
        total += large[step] * (candidates / large["candidates"]) ** b
    return total


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10000,100000,1000000,10000000", help="target candidates, comma-separated")
    parser.add_argument("--concurrency", type=int, default=1, help="the comparison run's concurrency")
    parser.add_argument("--save", help="write the measurements to this JSON file")
    parser.add_argument("--load", help="print the tables from measurements saved before")
    args = parser.parse_args()
    if args.load:
        rows = json.loads(Path(args.load).read_text())
    else:
        settings = load_settings(env={})
        ontology = parse_ontology(plugins_dir() / "cardiology" / "ontology.yaml")
        names = sorted(c.name for c in ontology.concepts)
        rows = []
        for target in [int(s) for s in args.sizes.split(",")]:
            row = one_size(settings, target / (BASE_CHUNKS * BASE_OBJECTS * 2), names, ontology, args.concurrency)
            rows.append(row)
            print(f"size {target:,}: {json.dumps(row)}", flush=True)
        if args.save:
            Path(args.save).write_text(json.dumps(rows, indent=1))
    report(rows, args.concurrency)


def report(rows: list[dict], concurrency: int) -> None:
    candidates = [r["candidates"] for r in rows]
    print(f"\nHow cost grows ({len(rows)} sizes; each a fresh local Neo4j; server processors "
          f"{rows[0]['server processors']})\n")
    print("| step | " + " | ".join(f"{c:,} candidates" for c in candidates) + " | exponent b (time ~ n^b) |")
    print("|---|" + "---:|" * len(rows) + "---:|")
    print("| selection path | " + " | ".join(r.get("engine", "cypher") for r in rows) + " | |")
    for name in ["chunks", "objects", "evidence nodes", "llm calls", "prompt tokens"]:
        print(f"| {name} | " + " | ".join(f"{r[name]:,}" for r in rows) + f" | {exponent(candidates, [r[name] for r in rows]):.2f} |")
    for name in STEPS:
        label = name.replace("--concurrency", f"concurrency {concurrency}")
        unit, scale = ("ms", 1000) if name == "prompt build p50" else ("s", 1)
        print(f"| {label} | " + " | ".join(f"{r[name] * scale:.1f} {unit}" for r in rows)
              + f" | {exponent(candidates, [r[name] for r in rows]):.2f} |")
    print("| store on disk | " + " | ".join(f"{r['store MB']:.0f} MB" for r in rows)
          + f" | {exponent(candidates, [r['store MB'] for r in rows]):.2f} |")
    print("\nLocal exponents between the two largest sizes: " + ", ".join(
        f"{step} {exponent(candidates[-2:], [rows[-2][step], rows[-1][step]]):.2f}" for step in EXTRAPOLATED))
    low, high = float(candidates[-1]), float(candidates[-1]) * 1e4
    if extrapolate(rows, low) > 3600:
        high, low = low, float(candidates[0])
    for _ in range(60):  # bisection on log scale: the size whose ingest, analysis and select take one hour
        mid = math.sqrt(low * high)
        low, high = (mid, high) if extrapolate(rows, mid) < 3600 else (low, mid)
    print(f"Ingest, offline analysis and a full select fit one hour up to about {low:,.0f} candidates "
          f"on this machine (each step extrapolated on its own).")
    per_candidate = (rows[-1]["store MB"] - rows[-2]["store MB"]) / (candidates[-1] - candidates[-2])
    calls = rows[-1]["llm calls"] * (1e8 / candidates[-1]) ** 0.5
    tokens = rows[-1]["prompt tokens"] * (1e8 / candidates[-1]) ** 0.5
    print(f"100,000,000 candidates (chunks and objects 10x the largest size's): about "
          f"{extrapolate(rows, 1e8) / 3600:,.1f} hours for the same steps, {per_candidate * 1e8 / 1024:,.0f} GB of "
          f"store ({per_candidate * 2**20:.0f} bytes a candidate), {calls:,.0f} LLM calls and {tokens:,.0f} prompt tokens.")


if __name__ == "__main__":
    main()
