"""The evaluation from inputs to files: build the graph, compare, sweep, write."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from tripartite.evaluation.measure import RagSetting, Summary, Verdict, measure_objects, summarize, verdicts_of
from tripartite.evaluation.plot import write_plot
from tripartite.evaluation.report import write_json, write_markdown
from tripartite.evaluation.sweep import sweep
from tripartite.infra.config import Settings
from tripartite.infra.graph import Graph
from tripartite.pipeline import Inputs, make_chunk_embedder, prepare, reset_graph, run_pipeline


@dataclass(frozen=True)
class EvalOptions:
    alpha: float
    beta: float
    rag_settings: tuple[RagSetting, ...]
    sweep_alphas: tuple[float, ...]
    sweep_betas: tuple[float, ...]
    question: str | None   # None: each object's plugin question
    out: Path
    offline: bool = False
    reset: bool = False
    concurrency: int = 4
    budgets: tuple[int, ...] = ()  # also Tripartite with at most N extracts per concept


@dataclass(frozen=True)
class EvalResult:
    summaries: list[Summary]
    verdicts: list[Verdict]  # one per Tripartite variant: the paper's, then each budget
    files: dict[str, Path]
    analysis_errors: list[str]


def evaluate(settings: Settings, graph: Graph, inputs: Inputs, options: EvalOptions,
             say: Callable[[str], None]) -> EvalResult:
    prepared = prepare(inputs)  # a bad input fails here, before --reset empties anything
    if options.reset:
        say("emptying the database (--reset)")
        reset_graph(graph)
    built = run_pipeline(settings, graph, prepared, say, options.alpha, options.beta, offline=options.offline,
                         concurrency=options.concurrency, exclusive=True)
    embedder = make_chunk_embedder(settings, options.offline)
    say(f"comparing prompts for {len(built.objects)} objects: Tripartite and "
        f"{', '.join(s.label for s in options.rag_settings)}")
    measurements = measure_objects(graph, embedder, built.objects, list(options.rag_settings), options.question,
                                   budgets=list(options.budgets))
    summaries = summarize(measurements)
    verdicts = verdicts_of(summaries)
    say(f"alpha/beta sweep over {len(options.sweep_alphas)} x {len(options.sweep_betas)} values")
    points = sweep(graph, built.objects, list(options.sweep_alphas), list(options.sweep_betas),
                   options.question, restore=(options.alpha, options.beta))

    options.out.mkdir(parents=True, exist_ok=True)
    files = {"markdown": options.out / "eval.md", "json": options.out / "eval.json", "plot": options.out / "eval.png"}
    counts = graph.run("evaluation/graph_counts")[0]
    context = {"documents": len(built.documents), "chunks": counts["chunks"], "graph": counts,
               "ontology": built.ontology, "objects": len(built.objects), "provider": built.provider,
               "model": built.model, "embedder": embedder.name, "alpha": options.alpha, "beta": options.beta,
               "budgets": list(options.budgets),
               "rag_settings": [s.label for s in options.rag_settings], "seconds": built.seconds,
               "analysis": {k: v for k, v in built.analysis.items() if k != "stages"}}
    write_markdown(files["markdown"], context, summaries, verdicts, measurements, points, files["plot"].name)
    write_json(files["json"], context, summaries, verdicts, measurements, points)
    write_plot(files["plot"], measurements, f"{len(built.objects)} objects, {built.ontology}: concepts covered "
                                            "against prompt tokens")
    return EvalResult(summaries, verdicts, files, built.analysis_errors)
