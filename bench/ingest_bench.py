"""Lexical-graph benchmark: parse+chunk, graph-write and embedding throughput.

    python bench/ingest_bench.py [--chunks 10000] [--embed-sample 1000]

Runs against a throwaway local Neo4j (started in a temporary folder on free ports and
stopped at the end) unless --uri names a disposable database. Prints a table; asserts
nothing. Corpus: ../shared/corpus/guidelines (real documents, read by path) and a generated
corpus of at least --chunks chunks made by reshuffling their sentences.
"""
from __future__ import annotations

import argparse
import contextlib
import random
import sys
import tempfile
import time
from pathlib import Path

from neo4j import GraphDatabase

from throwaway import throwaway_server

from tripartite.infra import migrations
from tripartite.infra.graph import Graph
from tripartite.infra.config import load_settings
from tripartite.infra.embeddings import MiniLMEmbedder
from tripartite.infra.paths import migrations_dir
from tripartite.lexical.chunker import chunk_document
from tripartite.lexical.embed import embed_chunks
from tripartite.lexical.ids import readable_ids
from tripartite.lexical.readers import discover, read_document
from tripartite.lexical.sentences import sentences_of
from tripartite.lexical.store import write_documents
from tripartite.lexical.token_counters import WordPieceCounter

SHARED = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "guidelines"


def generate_corpus(folder: Path, target_chunks: int, counter, seed: int = 7) -> None:
    """Markdown documents of real guideline sentences in random order until the chunker
    makes at least `target_chunks` chunks of them."""
    sentences = [s for f in sorted(SHARED.glob("*.md"))
                 for para in sentences_of(f.read_text(encoding="utf-8")) for s in para if len(s.split()) > 4]
    rng = random.Random(seed)
    total, n = 0, 0
    while total < target_chunks:
        n += 1
        lines = [f"# Generated guideline {n}\n"]
        for s in range(8):
            lines.append(f"\n## Question {s + 1}\n")
            lines.extend(" ".join(rng.choice(sentences) for _ in range(10)) + "\n" for _ in range(3))
        path = folder / f"generated-{n:04d}.md"
        path.write_text("\n".join(lines), encoding="utf-8")
        total += len(chunk_document(read_document(path, path.stem), counter).chunks)


def parse_and_chunk(files: list[Path], counter) -> tuple[list, float]:
    started = time.perf_counter()
    ids = readable_ids(files)
    records = [chunk_document(read_document(f, ids[f], 10**9), counter) for f in files]
    return records, time.perf_counter() - started


def write_all(graph: Graph, records: list, batch_chunks: int = 5000) -> float:
    started = time.perf_counter()
    batch, size = [], 0
    for r in records:
        batch.append(r)
        size += len(r.chunks)
        if size >= batch_chunks:
            write_documents(graph, batch)
            batch, size = [], 0
    write_documents(graph, batch)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunks", type=int, default=10000)
    parser.add_argument("--embed-sample", type=int, default=1000, help="generated chunks to embed for the rate")
    parser.add_argument("--uri", help="a disposable Neo4j (it is wiped); default: a throwaway local server")
    args = parser.parse_args()
    if not SHARED.is_dir():
        sys.exit(f"{SHARED}: shared corpus not found")

    settings = load_settings(env={})
    counter = WordPieceCounter(settings.cache_dir)
    database = "neo4j"
    rows = []
    given = contextlib.nullcontext((args.uri, None)) if args.uri else throwaway_server(settings)
    with given as (uri, _):
        with GraphDatabase.driver(uri, auth=None, notifications_min_severity="OFF") as driver:
            graph = Graph(driver, database)
            with driver.session(database=database) as session:
                session.run("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS").consume()
            migrations.migrate(graph, migrations_dir())

            real_files = discover([SHARED]).supported
            real_files = [f for f in real_files if f.suffix == ".md"]
            records, parse_s = parse_and_chunk(real_files, counter)
            n_real = sum(len(r.chunks) for r in records)
            write_s = write_all(graph, records)
            rows.append(("shared guidelines: parse + chunk", n_real, parse_s))
            rows.append(("shared guidelines: graph write", n_real, write_s))
            embedder = MiniLMEmbedder(settings.cache_dir)
            started = time.perf_counter()
            embedded = embed_chunks(graph, embedder)
            rows.append(("shared guidelines: embed + write vectors", embedded, time.perf_counter() - started))

            with tempfile.TemporaryDirectory(prefix="tripartite-bench-corpus-") as tmp:
                folder = Path(tmp)
                generate_corpus(folder, args.chunks, counter)
                files = sorted(folder.glob("*.md"))
                records, parse_s = parse_and_chunk(files, counter)
                n_gen = sum(len(r.chunks) for r in records)
                write_s = write_all(graph, records)
                rows.append((f"generated ({len(files)} docs): parse + chunk", n_gen, parse_s))
                rows.append((f"generated ({len(files)} docs): graph write", n_gen, write_s))
                rewrite_s = write_all(graph, records)
                rows.append(("generated: rewrite (replace all)", n_gen, rewrite_s))

                sample = [c.text for r in records for c in r.chunks][:args.embed_sample]
                mean_tokens = sum(counter.count_many(sample)) / max(len(sample), 1)
                started = time.perf_counter()
                embedder.embed(sample)
                rows.append((f"embed only, {len(sample)} generated chunks (mean {mean_tokens:.0f} word pieces)",
                             len(sample), time.perf_counter() - started))

    print(f"\nLexical-graph benchmark  (Neo4j at {uri if args.uri else 'a throwaway local server'}, "
          f"{__import__('os').cpu_count()} cores)\n")
    print(f"| {'step':<62} | {'chunks':>7} | {'seconds':>8} | {'chunks/s':>9} |")
    print(f"|{'-' * 64}|{'-' * 9}|{'-' * 10}|{'-' * 11}|")
    for name, n, seconds in rows:
        print(f"| {name:<62} | {n:>7} | {seconds:>8.2f} | {n / seconds if seconds else 0:>9.0f} |")
    print("\nTargets: graph write >= 2,000 chunks/s; embedding >= 40 default-size chunks/s.")


if __name__ == "__main__":
    main()
