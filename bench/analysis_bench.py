"""Pre-analysis benchmark on the shared corpus: calls and prompt tokens of the batched,
pre-filtered scheme against one call per (concept, chunk), the pre-filter's recall, and an
offline run's wall time.

    python bench/analysis_bench.py

Reads ../shared/corpus (6 guidelines, ontology.yaml, 36 anamneses) by path and runs against
a throwaway local Neo4j started in a temporary folder. Prints tables; asserts nothing.
"""
from __future__ import annotations

import time
from pathlib import Path

from neo4j import GraphDatabase

from throwaway import throwaway_server

from tripartite.analysis import Analyzer, dry_run_figures
from tripartite.analysis.extractive import ExtractiveProvider
from tripartite.analysis.prompts import concept_lines, render
from tripartite.analysis.schema import ExtractionTask
from tripartite.infra import migrations
from tripartite.infra.config import load_settings
from tripartite.infra.embeddings import MiniLMEmbedder
from tripartite.infra.graph import Graph
from tripartite.infra.llm.cache import AnswerCache
from tripartite.infra.llm.runner import LLMRunner
from tripartite.infra.paths import migrations_dir
from tripartite.infra.tokens import count_tokens
from tripartite.lexical.embed import embed_chunks
from tripartite.lexical.ingest import ingest_paths
from tripartite.lexical.token_counters import WordPieceCounter
from tripartite.objects.reader import read_object
from tripartite.objects.store import add_objects
from tripartite.ontology.reader import parse_ontology
from tripartite.ontology.store import load_ontology

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


def main() -> None:
    settings = load_settings(env={})
    db = "neo4j"
    with throwaway_server(settings) as (uri, home):
        with GraphDatabase.driver(uri, auth=None, notifications_min_severity="OFF") as driver:
            graph = Graph(driver, db)
            migrations.migrate(graph, migrations_dir())
            counter = WordPieceCounter(settings.cache_dir)
            embedder = MiniLMEmbedder(settings.cache_dir)
            guidelines = sorted((CORPUS / "guidelines").glob("*.md"))
            ingest_paths(graph, [str(p) for p in guidelines], counter, 200, 64 * 2**20)
            embed_chunks(graph, embedder)
            load_ontology(graph, parse_ontology(CORPUS / "ontology.yaml"))
            anamneses = sorted((CORPUS / "anamneses").glob("*.md"))
            add_objects(graph, [read_object(p, "anamnesis") for p in anamneses])

            provider = ExtractiveProvider(embedder)
            runner = LLMRunner(provider, AnswerCache(home / "cache.sqlite"))
            analyzer = Analyzer(graph, embedder, runner)
            plan = analyzer.plan()
            figures = dry_run_figures(plan, lambda task: False)
            chunks = graph.run("analysis/chunks_to_analyse", concept_ids=sorted(analyzer.concepts), redo=None)

            # The naive scheme: one call per (concept, chunk), each prompt naming one concept.
            template = analyzer._template("cardiometabolic", "chunk")
            naive_tokens = 0
            for row in chunks:
                for cid in row["missing"]:
                    naive_tokens += count_tokens(render(template, concepts=concept_lines([analyzer.concepts[cid]]),
                                                         text=row["text"], document=row["document"] or "",
                                                         section=row["section"] or ""))
            unfiltered = Analyzer(graph, embedder, runner, prefilter=False).plan()
            unfiltered_figures = dry_run_figures(unfiltered, lambda task: False)

            # Recall of the pre-filter: pairs the extractor finds something for when it sees every
            # concept, and how many of them the pre-filter lets through.
            relevant = kept = 0
            for row in chunks:
                concepts = tuple(analyzer.concepts[c] for c in row["missing"])
                found, _ = provider.answer(ExtractionTask("chunk", row["id"], "", row["text"], concepts))
                hits = {cid for cid, text in found.items() if text}
                relevant += len(hits)
                kept += len(hits & set(analyzer._candidates(row, row["missing"])))

            started = time.perf_counter()
            errors = analyzer.execute(plan)
            wall = time.perf_counter() - started
            edges = graph.run("analysis/concepts", ontology=None)
            counts, _, _ = driver.execute_query(
                "RETURN COUNT { ()-[:MENTIONED_IN]->() } AS mentioned, COUNT { ()-[:CONCERNS]->() } AS concerns")

    print(f"\nPre-analysis on the shared corpus: {len(guidelines)} guidelines, {len(chunks)} chunks, "
          f"{len(edges)} concepts, {len(anamneses)} anamneses\n")
    print("| scheme (chunk stage) | LLM calls | prompt tokens (cl100k_base) |")
    print("|---|---:|---:|")
    print(f"| naive: one call per (concept, chunk) | {figures['pairs']['naive_calls']:,} | {naive_tokens:,} |")
    print(f"| batched per chunk, no pre-filter | {unfiltered_figures['chunk']['calls']:,} | "
          f"{unfiltered_figures['chunk']['prompt_tokens']:,} |")
    print(f"| batched per chunk, pre-filtered | {figures['chunk']['calls']:,} | {figures['chunk']['prompt_tokens']:,} |")
    print(f"\nObject stage: {figures['object']['calls']} calls, {figures['object']['prompt_tokens']:,} prompt tokens "
          f"(one call per anamnesis, all concepts).")
    print(f"Pre-filter: {figures['pairs']['after_prefilter']:,} of {figures['pairs']['naive_calls']:,} pairs kept; "
          f"recall {kept}/{relevant} = {kept / max(relevant, 1):.1%} of the pairs the extractor finds text for "
          "when it sees every concept.")
    print(f"Offline run (extractive provider): {wall:.1f} s wall for {len(plan.chunk_tasks)} chunk tasks and "
          f"{len(plan.object_tasks)} object tasks; {counts[0]['mentioned']} MENTIONED_IN and "
          f"{counts[0]['concerns']} CONCERNS edges; errors: {len(errors)}.")


if __name__ == "__main__":
    main()
