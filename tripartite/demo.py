"""`tripartite demo`: the whole pipeline on the built-in sample corpus, offline.

Each step is the same code the individual commands run; the demo only strings them
together and prints what a newcomer should see: one object's prompt with references, and a
small table of Tripartite prompts against vector RAG on the sample objects.
"""
from __future__ import annotations

from typing import Callable

import neo4j

from tripartite import migrations, scripts
from tripartite.config import Settings
from tripartite.paths import samples_dir

DEMO_OBJECT = "patient-b"


def coverage(driver: neo4j.Driver, database: str, object_id: str, chunk_ids: list[str]) -> tuple[int, int]:
    """(covered, total): the object's concepts (its CONCERNS edges) for which at least one of
    the chunks carries an extract of that concept (a MENTIONED_IN edge)."""
    rows = scripts.query(driver, database, "selection/coverage", object_id=object_id, chunk_ids=chunk_ids)
    return rows[0]["covered"], rows[0]["total"]


def run_demo(settings: Settings, driver: neo4j.Driver, say: Callable[[str], None]) -> dict:
    from tripartite.analysis import Analyzer
    from tripartite.embeddings import MiniLMEmbedder, make_token_counter
    from tripartite.lexical.embed import embed_chunks
    from tripartite.lexical.ingest import ingest_paths
    from tripartite.llm.cache import AnswerCache
    from tripartite.llm.providers import ExtractiveProvider
    from tripartite.llm.runner import LLMRunner
    from tripartite.objects import add_objects, read_object
    from tripartite.ontology import resolve
    from tripartite.ontology_store import load_ontology
    from tripartite.rag import rag_prompt, retrieve
    from tripartite.selection import DEFAULT_QUESTION, build_prompt, prompt_material, select

    db = settings.neo4j_database
    say("1/7 migrations")
    migrations.migrate(driver, db, settings.migrations_dir)
    say("2/7 ingesting the sample guidelines (lexical graph + embeddings)")
    report = ingest_paths(driver, db, [str(samples_dir() / "guidelines")], make_token_counter(settings),
                          settings.chunking.max_tokens, int(settings.chunking.max_mb * 2**20))
    embedder = MiniLMEmbedder(settings.cache_dir)
    embed_chunks(driver, db, embedder)
    say("3/7 loading the cardiology ontology plugin")
    load_ontology(driver, db, resolve("cardiology")[0])
    say("4/7 adding the sample anamneses")
    objects = sorted((samples_dir() / "objects").glob("*.md"))
    add_objects(driver, db, [read_object(p, "anamnesis") for p in objects])
    say("5/7 pre-analysis with the offline extractive provider")
    runner = LLMRunner(ExtractiveProvider(embedder), AnswerCache(settings.llm_cache))
    analyzer = Analyzer(driver, db, embedder, runner, ontology="cardiology")
    errors = analyzer.execute(analyzer.plan())
    say("6/7 selection in Cypher (alpha 0.9, beta 0.5)")
    select(driver, db, 0.9, 0.5)
    say("7/7 prompts and the comparison with vector RAG")
    prompt = build_prompt(DEMO_OBJECT, prompt_material(driver, db, DEMO_OBJECT), DEFAULT_QUESTION, 0.9, 0.5)
    table = []
    for path in objects:
        object_id = path.stem
        ours = build_prompt(object_id, prompt_material(driver, db, object_id), DEFAULT_QUESTION, 0.9, 0.5)
        ours_chunks = [e["chunk_id"] for c in ours["concepts"] for e in c["evidence"]]
        row = {"object_id": object_id, "tripartite_tokens": ours["tokens"],
               "tripartite_covered": coverage(driver, db, object_id, ours_chunks)}
        text = scripts.query(driver, db, "objects/object_text", object_id=object_id)[0]["text"]
        for k in (3, 5):
            chunks = retrieve(driver, db, embedder, text, k, None)
            rag = rag_prompt(object_id, text, chunks, DEFAULT_QUESTION)
            row[f"rag_top{k}_tokens"] = rag["tokens"]
            row[f"rag_top{k}_covered"] = coverage(driver, db, object_id, [c["chunk_id"] for c in chunks])
        table.append(row)
    return {"ingested": len(report.ingested), "errors": errors, "prompt": prompt, "table": table}
