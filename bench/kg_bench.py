"""The triplet graph's cost and speed, printed as tables; asserts nothing.

    python bench/kg_bench.py [--document ../shared/corpus/dbgpt/graphrag-test.md] [--entities 100000] [--relations 1000000]

1. On DB-GPT's benchmark document: the prompt tokens `kg extract --dry-run` and
   `kg communities --dry-run` count (exact, cl100k_base) next to DB-GPT's and Microsoft
   GraphRAG's published indexing costs, and the offline providers' wall time.
2. Leiden (GDS, one thread, fixed seed) on a synthetic entity graph with planted groups:
   projection, Leiden and the writing of the communities, timed.
Each part runs against a throwaway local Neo4j.
"""
from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

from neo4j import GraphDatabase

from throwaway import throwaway_server

from tripartite.infra import migrations
from tripartite.infra.config import load_settings
from tripartite.infra.embeddings import MiniLMEmbedder
from tripartite.infra.graph import Graph
from tripartite.infra.llm.cache import AnswerCache
from tripartite.infra.llm.runner import LLMRunner
from tripartite.infra.paths import migrations_dir
from tripartite.kg import communities, extract
from tripartite.kg.extractive import ReportWriter
from tripartite.lexical.embed import embed_chunks
from tripartite.lexical.ingest import ingest_paths
from tripartite.lexical.token_counters import make_token_counter

DBGPT = ("DB-GPT (published, graphrag-test.md)", 417_565, 170)
MICROSOFT = ("Microsoft GraphRAG (published, same file)", 972_220, 210)


def document_costs(settings, document: Path) -> None:
    with throwaway_server(settings) as (uri, home), GraphDatabase.driver(uri, auth=None, notifications_min_severity="OFF") as driver:
        graph = Graph(driver, "neo4j")
        migrations.migrate(graph, migrations_dir())
        started = time.perf_counter()
        ingest_paths(graph, [str(document)], make_token_counter(settings), 200, 64 * 2**20)
        embed_chunks(graph, MiniLMEmbedder(settings.cache_dir))
        ingest_s = time.perf_counter() - started
        cache = AnswerCache(home / "cache.sqlite")
        offline = extract.offline_extractor(graph)
        plan = extract.plan(graph, offline)
        extraction = extract.dry_run_figures(plan, lambda task: False)
        started = time.perf_counter()
        extract.execute(graph, LLMRunner(offline, cache), plan)
        extract_s = time.perf_counter() - started
        started = time.perf_counter()
        detected = communities.detect(graph)
        tasks, summaries = communities.report_tasks(graph), communities.summary_tasks(graph)
        community = communities.dry_run_figures([*summaries, *tasks], lambda task: False)
        communities.report(graph, LLMRunner(ReportWriter(), cache), MiniLMEmbedder(settings.cache_dir), tasks, summaries)
        community_s = time.perf_counter() - started
        status = extract.status(graph)
    total = extraction["prompt_tokens"] + community["prompt_tokens"]
    print(f"\n{document.name}: {status['chunks']} chunks, {status['entities']} entities, {status['relations']} "
          f"relations, {detected['communities']} communities (offline extraction); ingest {ingest_s:.1f} s\n")
    print("| indexing | LLM calls | prompt tokens | offline wall time |")
    print("|---|---:|---:|---:|")
    print(f"| kg extract (one call per chunk with text) | {extraction['calls']} | {extraction['prompt_tokens']:,} | "
          f"{extract_s:.1f} s |")
    print(f"| kg communities ({len(tasks)} reports, {len(summaries)} entity summaries) | {community['calls']} | "
          f"{community['prompt_tokens']:,} | {community_s:.1f} s |")
    print(f"| **together** | {extraction['calls'] + community['calls']} | **{total:,}** | "
          f"{extract_s + community_s:.1f} s |")
    for name, tokens, seconds in (DBGPT, MICROSOFT):
        print(f"| {name} | | {tokens:,} (prompt and completion) | {seconds} s with an LLM |")


def leiden_timing(settings, entities: int, relations: int, groups: int = 1000) -> None:
    rng = random.Random(7)
    with throwaway_server(settings) as (uri, home), GraphDatabase.driver(uri, auth=None, notifications_min_severity="OFF") as driver:
        graph = Graph(driver, "neo4j")
        migrations.migrate(graph, migrations_dir())
        started = time.perf_counter()
        with driver.session() as session:
            session.run("UNWIND range(0, $n - 1) AS i CALL (i) { CREATE (:__Entity__ {key: 'e' + i, name: 'e' + i}) } "
                        "IN TRANSACTIONS OF 20000 ROWS", n=entities).consume()
        size = entities // groups
        pairs = []
        for _ in range(relations):  # 90% inside a planted group, 10% across
            a = rng.randrange(entities)
            b = (a // size) * size + rng.randrange(size) if rng.random() < 0.9 else rng.randrange(entities)
            if a != b:
                pairs.append({"a": f"e{a}", "b": f"e{b}"})
        for start in range(0, len(pairs), 50_000):
            driver.execute_query("UNWIND $rows AS row MATCH (a:__Entity__ {key: row.a}), (b:__Entity__ {key: row.b}) "
                                 "CREATE (a)-[:RELATED_TO {chunks: ['t'], weight: 1}]->(b)",
                                 rows=pairs[start:start + 50_000])
        build_s = time.perf_counter() - started
        started = time.perf_counter()
        rows = graph.run("kg/leiden", graph=communities.PROJECTION, seed=communities.SEED, max_levels=10)
        graph.run("kg/drop_projection", graph=communities.PROJECTION)
        leiden_s = time.perf_counter() - started
        started = time.perf_counter()
        found, memberships = communities._communities(rows)
        graph.run("kg/write_communities", communities=found, memberships=memberships)
        write_s = time.perf_counter() - started
    levels = sorted({c["level"] for c in found})
    print(f"\nLeiden on {entities:,} entities and {len(pairs):,} relations ({groups} planted groups; graph built in "
          f"{build_s:.0f} s)\n")
    print("| step | seconds |")
    print("|---|---:|")
    print(f"| projection and hierarchical Leiden (GDS, one thread, seed {communities.SEED}) | {leiden_s:.1f} |")
    print(f"| {len(found):,} communities over {len(levels)} levels written | {write_s:.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--document", type=Path, default=Path("../shared/corpus/dbgpt/graphrag-test.md"))
    parser.add_argument("--entities", type=int, default=100_000)
    parser.add_argument("--relations", type=int, default=1_000_000)
    args = parser.parse_args()
    settings = load_settings()
    document_costs(settings, args.document)
    leiden_timing(settings, args.entities, args.relations)


if __name__ == "__main__":
    main()
