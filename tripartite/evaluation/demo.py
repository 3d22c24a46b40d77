"""`tripartite demo`: the main job end to end on the built-in sample (three guidelines, the
cardiology plugin, three anamneses), offline: one object's prompt and the comparison with
vector RAG and with local and global search over the triplet graph that `tripartite eval`
makes on a user's own inputs."""
from __future__ import annotations

from dataclasses import asdict
from typing import Callable

from tripartite.evaluation.judge import LexiconJudge
from tripartite.evaluation.measure import RagSetting, Variant, measure_objects
from tripartite.infra.config import Settings
from tripartite.infra.embeddings import chunk_embedder
from tripartite.infra.graph import Graph
from tripartite.infra.llm import open_runner
from tripartite.infra.paths import samples_dir
from tripartite.kg.build import build_triplet_graph
from tripartite.pipeline import Inputs, prepare, run_pipeline
from tripartite.search.global_search import PointRanker
from tripartite.search.modes import object_prompt

DEMO_OBJECT = "patient-b"


def run_demo(settings: Settings, graph: Graph, say: Callable[[str], None]) -> dict:
    inputs = Inputs((str(samples_dir() / "guidelines"),), "cardiology", (str(samples_dir() / "objects"),), "anamnesis")
    alpha, beta = settings.selection.alpha, settings.selection.beta
    steps = iter(range(1, 8))

    def step(message: str) -> None:
        say(f"{next(steps)}/9 {message}")

    built = run_pipeline(settings, graph, prepare(inputs), step,
                         alpha, beta, offline=True,
                         exclusive="the demo must not touch; point NEO4J_URI at an empty database, or give it a local "
                                   "server of its own: TRIPARTITE_SERVER_HOME=/tmp/tripartite-demo TRIPARTITE_BOLT_PORT=7688 "
                                   "TRIPARTITE_HTTP_PORT=7475 tripartite demo")
    embedder = chunk_embedder(settings, offline=True)
    triplets = build_triplet_graph(settings, graph, embedder, lambda message: say(f"8/9 {message}"), offline=True)
    searches = ("local", "global") if triplets["communities"] is not None else ("local",)
    say(f"9/9 prompts and the comparison with vector RAG and {' and '.join(searches)} search")
    question = settings.selection.question or None
    prompt = object_prompt(graph, DEMO_OBJECT, "tripartite", None, None, question).details()
    with open_runner(settings, PointRanker(), offline=True) as runner:
        table = measure_objects(graph, embedder, built.objects, [Variant()],
                                [RagSetting(top_k=3), RagSetting(top_k=5)], question, LexiconJudge.of_graph(graph),
                                searches=searches, search_runner=runner)
    return {"ingested": built.ingested, "errors": built.analysis_errors + triplets["errors"], "prompt": prompt,
            "table": [asdict(m) for m in table], "note": triplets["note"]}
