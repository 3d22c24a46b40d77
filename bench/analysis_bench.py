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

from tripartite import migrations, scripts
from tripartite.analysis import Analyzer, _concept_lines, _render, dry_run_figures
from tripartite.config import load_settings
from tripartite.embeddings import MiniLMEmbedder
from tripartite.lexical.embed import embed_chunks
from tripartite.lexical.ingest import ingest_paths
from tripartite.lexical.tokens import WordPieceCounter
from tripartite.llm.cache import AnswerCache
from tripartite.llm.providers import ExtractionTask, ExtractiveProvider
from tripartite.llm.runner import LLMRunner
from tripartite.objects import add_objects, read_object
from tripartite.ontology import parse_ontology
from tripartite.ontology_store import load_ontology
from tripartite.paths import migrations_dir
from tripartite.tokens import count_tokens

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


def main() -> None:
    settings = load_settings(env={})
    db = "neo4j"
    with throwaway_server(settings) as (uri, home):
        with GraphDatabase.driver(uri, auth=None, notifications_min_severity="OFF") as driver:
            migrations.migrate(driver, db, migrations_dir())
            counter = WordPieceCounter(settings.cache_dir)
            embedder = MiniLMEmbedder(settings.cache_dir)
            guidelines = sorted((CORPUS / "guidelines").glob("*.md"))
            ingest_paths(driver, db, [str(p) for p in guidelines], counter, 200, 64 * 2**20)
            embed_chunks(driver, db, embedder)
            load_ontology(driver, db, parse_ontology(CORPUS / "ontology.yaml"))
            anamneses = sorted((CORPUS / "anamneses").glob("*.md"))
            add_objects(driver, db, [read_object(p, "anamnesis") for p in anamneses])

            provider = ExtractiveProvider(embedder)
            runner = LLMRunner(provider, AnswerCache(home / "cache.sqlite"))
            analyzer = Analyzer(driver, db, embedder, runner)
            plan = analyzer.plan()
            figures = dry_run_figures(plan, lambda task: False)
            chunks = scripts.query(driver, db, "analysis/chunks_to_analyse", concept_ids=sorted(analyzer.concepts))

            # The naive scheme: one call per (concept, chunk), each prompt naming one concept.
            template = analyzer._template("cardiometabolic", "chunk")
            naive_tokens = 0
            for row in chunks:
                for cid in row["missing"]:
                    naive_tokens += count_tokens(_render(template, concepts=_concept_lines([analyzer.concepts[cid]]),
                                                         text=row["text"], document=row["document"] or "",
                                                         section=row["section"] or ""))
            unfiltered = Analyzer(driver, db, embedder, runner, prefilter=False).plan()
            unfiltered_figures = dry_run_figures(unfiltered, lambda task: False)

            # Recall of the pre-filter: pairs the extractor finds something for when it sees every
            # concept, and how many of them the pre-filter lets through.
            relevant = kept = 0
            for row in chunks:
                concepts = tuple(analyzer.concepts[c] for c in row["missing"])
                found, _ = provider.extract(ExtractionTask("chunk", row["id"], "", row["text"], concepts))
                hits = {cid for cid, text in found.items() if text}
                relevant += len(hits)
                kept += len(hits & set(analyzer._candidates(row, row["missing"])))

            started = time.perf_counter()
            errors = analyzer.execute(plan)
            wall = time.perf_counter() - started
            edges = scripts.query(driver, db, "analysis/concepts", ontology=None)
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
