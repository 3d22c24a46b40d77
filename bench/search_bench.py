"""Local and global search: prompt tokens and retrieval times, printed as tables; asserts nothing.

    python bench/search_bench.py [--document ../shared/corpus/dbgpt/graphrag-test.md]
                                 [--questions bench/questions/graphrag-test.yaml] [--entities 100000]

1. On DB-GPT's benchmark document, its triplet graph built offline: for each question of the
   questions file, local search's prompt tokens and global search's (final prompt, map calls,
   all together), every cited source checked to have its reference, and the time local
   retrieval takes (keywords and the one Cypher script, no LLM), p50 and p90 over repeats;
   DB-GPT's and Microsoft GraphRAG's published query costs beside them; then global search
   again with the reports' sentences embedded at each query, as before they were stored.
2. The local retrieval script on a synthetic triplet graph of --entities entities (five
   relations each, 20,000 chunks, two levels of communities), p50 and p90 over 200 queries of
   three entity names each.
Each part runs against a throwaway local Neo4j.
"""
from __future__ import annotations

import argparse
import random
import re
import statistics
import time
from pathlib import Path

import yaml
from neo4j import GraphDatabase

from throwaway import throwaway_server

from tripartite.infra import migrations
from tripartite.infra.config import load_settings
from tripartite.infra.embeddings import MiniLMEmbedder, forget_recent_vectors
from tripartite.infra.graph import Graph
from tripartite.infra.llm.cache import AnswerCache
from tripartite.infra.llm.runner import LLMRunner
from tripartite.infra.paths import migrations_dir
from tripartite.kg import communities, extract
from tripartite.kg.extractive import ReportWriter
from tripartite.lexical.embed import embed_chunks
from tripartite.lexical.ingest import ingest_paths
from tripartite.lexical.token_counters import make_token_counter
from tripartite.search.global_search import PointRanker, global_search
from tripartite.search.local_search import local_search, question_keywords, retrieve

PUBLISHED = [("DB-GPT (published)", "15 s, 9,230 tokens", "8 s, 7,432 tokens"),
             ("Microsoft GraphRAG (published)", "15 s, 11,619 tokens", "40 s, 63,317 tokens")]
LOCAL_LIMIT, GLOBAL_LIMIT = 9_230, 7_432
REPEATS = 30
GLOBAL_REPEATS = 5


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p * (len(ordered) - 1))))]


def cited_have_references(result: dict) -> bool:
    """Every [n] the prompt cites has its reference line, and every reference is cited."""
    prompt = result["prompt"]
    body, _, refs = prompt.rpartition("References:\n")
    cited = {int(n) for n in re.findall(r"\[(\d+)\]", body)}
    listed = {r["n"] for r in result["references"]}
    lines = {int(n) for n in re.findall(r"^\[(\d+)\] ", refs, re.MULTILINE)}
    return cited <= listed and listed == lines and listed <= cited | listed


def points(prompt: str) -> list[str]:
    """A global prompt's points, without their scores and references."""
    return [line.split(") ", 1)[1].rsplit(" [", 1)[0] for line in prompt.splitlines() if line.startswith("- (")]


def dbgpt_document(settings, document: Path, questions: list[dict]) -> None:
    with throwaway_server(settings) as (uri, home), GraphDatabase.driver(uri, auth=None, notifications_min_severity="OFF") as driver:
        graph = Graph(driver, "neo4j")
        migrations.migrate(graph, migrations_dir())
        embedder = MiniLMEmbedder(settings.cache_dir)
        ingest_paths(graph, [str(document)], make_token_counter(settings), 200, 64 * 2**20)
        embed_chunks(graph, embedder)
        cache = AnswerCache(home / "cache.sqlite")
        offline = extract.offline_extractor(graph)
        extract.execute(graph, LLMRunner(offline, cache), extract.plan(graph, offline))
        communities.detect(graph)
        communities.report(graph, LLMRunner(ReportWriter(), cache), embedder, communities.report_tasks(graph),
                           communities.summary_tasks(graph))
        status = extract.status(graph)
        ranker = LLMRunner(PointRanker(), cache)
        rows = []
        for q in questions:
            local = local_search(graph, q["question"], embedder)
            glob = global_search(graph, q["question"], embedder, ranker)
            keywords, _ = question_keywords(graph, q["question"])
            global_ms = []
            for _ in range(GLOBAL_REPEATS):  # offline: the map step ranks the reports' stored sentences
                started = time.perf_counter()
                global_search(graph, q["question"], embedder, ranker)
                global_ms.append(1000 * (time.perf_counter() - started))
            script, whole = [], []
            for _ in range(REPEATS):
                started = time.perf_counter()
                retrieve(graph, keywords)
                script.append(1000 * (time.perf_counter() - started))
                started = time.perf_counter()
                local_search(graph, q["question"], embedder)
                whole.append(1000 * (time.perf_counter() - started))
            rows.append((q, local, glob, script, whole, global_ms))
        # As before the reports' sentences were stored with them: the offline map step embeds
        # every sentence of the reports it ranks, for each query (the path a graph an older
        # version wrote still takes, until `kg communities` stores them).
        driver.execute_query("MATCH (s:ReportSentence) DETACH DELETE s")
        unstored = []
        for q, _, glob, _, _, _ in rows:
            times = []
            for _ in range(GLOBAL_REPEATS):
                forget_recent_vectors()  # as a one-shot command: no sentence vector kept from the last query
                started = time.perf_counter()
                again = global_search(graph, q["question"], embedder, ranker)
                times.append(1000 * (time.perf_counter() - started))
            # The same points in the same order, as far as both prompts go: embedded now, a
            # sentence cites its community's top chunks, not its own, so fewer fit the budget.
            stored_points, now_points = points(glob["prompt"]), points(again["prompt"])
            shared = min(len(stored_points), len(now_points))
            unstored.append((q, times, shared > 0 and stored_points[:shared] == now_points[:shared],
                             len(now_points), len(stored_points)))
    print(f"\n{document.name}: {status['chunks']} chunks, {status['entities']} entities, {status['relations']} "
          f"relations, {status['reports']} community reports (offline extraction and reports)\n")
    print("| question | local prompt | global: map calls | map tokens | final prompt | all tokens | references "
          "(local / global) | every cited source referenced | local retrieval p50 / p90 (script) | "
          "local search p50 (no LLM) | global search p50 (offline map) |")
    print("|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|")
    for q, local, glob, script, whole, global_ms in rows:
        ok = cited_have_references(local) and cited_have_references(glob)
        print(f"| {q['id']} ({q['scope']}) | {local['total_tokens']:,} | {glob['map_calls']} | {glob['map_tokens']:,} | "
              f"{glob['tokens']:,} | {glob['total_tokens']:,} | {len(local['references'])} / {len(glob['references'])} "
              f"| {'yes' if ok else 'NO'} | {statistics.median(script):.0f} / {percentile(script, 0.9):.0f} ms | "
              f"{statistics.median(whole):.0f} ms | {statistics.median(global_ms):.0f} ms |")
    worst_local = max(r[1]["total_tokens"] for r in rows)
    worst_global = max(r[2]["total_tokens"] for r in rows)
    print(f"\nat most {worst_local:,} prompt tokens for local (DB-GPT: {LOCAL_LIMIT:,}) and {worst_global:,} for global "
          f"(DB-GPT: {GLOBAL_LIMIT:,}); offline, prompt tokens only\n")
    print("| question | global search p50, sentences stored | p50, embedded at each query (as before) | "
          "the same points first (points then / now) |")
    print("|---|---:|---:|---|")
    for (q, times, same, now_n, stored_n), row in zip(unstored, rows):
        print(f"| {q['id']} | {statistics.median(row[5]):.0f} ms | {statistics.median(times):,.0f} ms | "
              f"{'yes' if same else 'NO'} ({now_n} / {stored_n}) |")
    print()
    print("| system | local search | global search |")
    print("|---|---|---|")
    for name, local_figure, global_figure in PUBLISHED:
        print(f"| {name} | {local_figure} | {global_figure} |")


def synthetic(settings, entities: int, chunks: int = 20_000, degree: int = 5, queries: int = 200) -> None:
    rng = random.Random(11)
    syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "xe", "zu", "ba", "de", "fi", "go", "hu", "jo"]
    names = [f"{''.join(rng.choice(syllables) for _ in range(3))}{i}" for i in range(entities)]
    with throwaway_server(settings) as (uri, _), GraphDatabase.driver(uri, auth=None, notifications_min_severity="OFF") as driver:
        graph = Graph(driver, "neo4j")
        migrations.migrate(graph, migrations_dir())
        started = time.perf_counter()
        driver.execute_query("CREATE (:Document {id: 'synthetic', title: 'Synthetic'})")
        driver.execute_query("MATCH (d:Document {id: 'synthetic'}) UNWIND range(0, $n - 1) AS i "
                             "CREATE (:Chunk {id: 'c' + i, index: i, document_id: 'synthetic', token_count: 150, "
                             "text: 'chunk ' + i})-[:FROM_DOCUMENT]->(d)", n=chunks)
        for start in range(0, entities, 20_000):
            rows = [{"key": f"e{i}", "name": names[i], "chunk": f"c{rng.randrange(chunks)}",
                     "description": f"{names[i]} is described with {names[rng.randrange(entities)]}"}
                    for i in range(start, min(entities, start + 20_000))]
            driver.execute_query("UNWIND $rows AS row CREATE (e:__Entity__ {key: row.key, name: row.name, "
                                 "type: 'Name', description: row.description}) WITH e, row "
                                 "MATCH (t:Chunk {id: row.chunk}) CREATE (e)-[:FROM_CHUNK]->(t)", rows=rows)
        pairs = [{"a": f"e{rng.randrange(entities)}", "b": f"e{rng.randrange(entities)}", "c": f"c{rng.randrange(chunks)}"}
                 for _ in range(entities * degree)]
        for start in range(0, len(pairs), 50_000):
            driver.execute_query("UNWIND $rows AS row MATCH (a:__Entity__ {key: row.a}), (b:__Entity__ {key: row.b}) "
                                 "CREATE (a)-[:RELATED_TO {chunks: [row.c], weight: 1.0, description: 'related'}]->(b)",
                                 rows=pairs[start:start + 50_000])
        driver.execute_query("UNWIND range(0, $n - 1) AS i CREATE (:Community {id: 'L1-' + i, level: 1, "
                             "title: 'group ' + i, summary: 'the summary of group ' + i})", n=entities // 1000)
        driver.execute_query("UNWIND range(0, $n - 1) AS i MATCH (p:Community {id: 'L1-' + (i / 10)}) "
                             "CREATE (:Community {id: 'L0-' + i, level: 0, title: 'team ' + i, "
                             "summary: 'the summary of team ' + i})-[:PARENT]->(p)", n=entities // 100)
        driver.execute_query("MATCH (e:__Entity__) WITH e, toInteger(substring(e.key, 1)) / 100 AS team "
                             "MATCH (c:Community {id: 'L0-' + team}) CREATE (e)-[:IN_COMMUNITY]->(c)")
        driver.execute_query("CALL db.awaitIndexes(600)")
        build_s = time.perf_counter() - started
        times, found = [], []
        for _ in range(queries):
            keywords = [names[rng.randrange(entities)] for _ in range(3)]
            started = time.perf_counter()
            result = retrieve(graph, keywords)
            times.append(1000 * (time.perf_counter() - started))
            found.append((len(result["entities"]), len(result["relations"]), len(result["chunks"])))
    print(f"\nsynthetic triplet graph: {entities:,} entities, {len(pairs):,} relations, {chunks:,} chunks "
          f"(built in {build_s:.0f} s)\n")
    print("| local retrieval (cypher/search/local.cypher, depth 2) | p50 | p90 | entities / relations / chunks found "
          "(median) |")
    print("|---|---:|---:|---|")
    print(f"| {queries} queries of 3 entity names | {statistics.median(times):.0f} ms | {percentile(times, 0.9):.0f} ms | "
          f"{statistics.median(f[0] for f in found):.0f} / {statistics.median(f[1] for f in found):.0f} / "
          f"{statistics.median(f[2] for f in found):.0f} |")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--document", type=Path, default=Path("../shared/corpus/dbgpt/graphrag-test.md"))
    parser.add_argument("--questions", type=Path, default=Path(__file__).parent / "questions" / "graphrag-test.yaml")
    parser.add_argument("--entities", type=int, default=100_000)
    args = parser.parse_args()
    settings = load_settings()
    if not args.document.is_file():
        raise SystemExit(f"{args.document}: no such file; run from the repository's root, or give --document")
    questions = yaml.safe_load(args.questions.read_text(encoding="utf-8"))["questions"]
    dbgpt_document(settings, args.document, questions)
    synthetic(settings, args.entities)


if __name__ == "__main__":
    main()
