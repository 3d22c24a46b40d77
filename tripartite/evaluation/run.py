"""The evaluation from inputs to files: build the graph, compare, sweep, write."""
from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from tripartite.evaluation.judge import LexiconJudge, LLMJudge
from tripartite.evaluation.measure import (SEARCH_LABELS, RagSetting, Summary, Variant, Verdict, measure_objects,
                                           summarize, verdicts_of)
from tripartite.evaluation.plot import write_plot
from tripartite.evaluation.report import write_json, write_markdown
from tripartite.evaluation.tune import Budget, sweep
from tripartite.infra.config import Settings
from tripartite.infra.embeddings import chunk_embedder
from tripartite.infra.errors import TripartiteError
from tripartite.infra.graph import Graph
from tripartite.infra.llm import open_runner
from tripartite.kg.build import build_triplet_graph
from tripartite.kg.extract import status as kg_status
from tripartite.pipeline import Inputs, prepare, reset_graph, run_pipeline
from tripartite.search.global_search import PointRanker


@dataclass(frozen=True)
class EvalOptions:
    alpha: float
    beta: float
    variants: tuple[Variant, ...]          # the Tripartite prompts measured; the first is the main one
    rag_settings: tuple[RagSetting, ...]
    sweep_alphas: tuple[float, ...]
    sweep_betas: tuple[float, ...]
    sweep_budgets: tuple[Budget, ...]
    question: str | None                   # None: each object's plugin question
    out: Path
    offline: bool = False
    reset: bool = False
    concurrency: int | None = None        # None: the setting, else 4 (at most the server's slots)
    searches: tuple[str, ...] = ("local", "global")  # DB-GPT's GraphRAG prompts, measured beside


@dataclass(frozen=True)
class EvalResult:
    summaries: list[Summary]
    verdicts: list[Verdict]  # one per Tripartite variant
    files: dict[str, Path]
    notes: list[str] = field(default_factory=list)


class PartialAnalysis(TripartiteError):
    """Some LLM tasks of the run failed: no figure is reported over an incomplete analysis."""


def refuse_partial(errors: list[str]) -> None:
    if errors:
        raise PartialAnalysis(f"{len(errors)} LLM tasks (pre-analysis, triplet graph) failed (first: {errors[0]}), so "
                              "no figure is reported; what was answered is kept, and running eval again retries "
                              "the rest")


def evaluate(settings: Settings, graph: Graph, inputs: Inputs, options: EvalOptions,
             say: Callable[[str], None]) -> EvalResult:
    prepared = prepare(inputs)  # a bad input fails here, before --reset empties anything
    if options.reset:
        say("emptying the database (--reset)")
        reset_graph(graph)
    built = run_pipeline(settings, graph, prepared, say, options.alpha, options.beta, offline=options.offline,
                         concurrency=options.concurrency,
                         exclusive="would leak into the comparison; use an empty database (or pass --reset to empty it)")
    refuse_partial(built.analysis_errors)
    embedder = chunk_embedder(settings, options.offline)
    judge = LexiconJudge.of_graph(graph, built.ontology)
    searches, notes, triplets = list(options.searches), [], {}
    if searches:
        triplets = build_triplet_graph(settings, graph, embedder, say, options.offline, options.concurrency)
        refuse_partial(triplets["errors"])
        if triplets["communities"] is None and "global" in searches:
            searches.remove("global")
            notes.append(f"no global search rows: {triplets['note']}")
            say(f"note: {notes[-1]}")
    with ExitStack() as stack:
        llm_judge = None
        if settings.llm.configured and not options.offline:
            runner = stack.enter_context(open_runner(settings, concurrency=options.concurrency))
            llm_judge = LLMJudge(runner, judge.concepts)
        search_runner = stack.enter_context(open_runner(settings, PointRanker(), offline=options.offline,
                                                        concurrency=options.concurrency))
        say(f"comparing prompts for {len(built.objects)} objects: "
            f"{', '.join(v.label for v in options.variants)}, {', '.join(s.label for s in options.rag_settings)}"
            + "".join(f", {SEARCH_LABELS[m]}" for m in searches)
            + (", judged by the lexicon and the LLM" if llm_judge else ", judged by the lexicon"))
        measurements = measure_objects(graph, embedder, built.objects, list(options.variants),
                                       list(options.rag_settings), options.question, judge, llm_judge,
                                       searches=tuple(searches), search_runner=search_runner)
    summaries = summarize(measurements)
    verdicts = verdicts_of(summaries)
    points = []
    if options.sweep_alphas and options.sweep_betas:
        say(f"sweep over alpha {list(options.sweep_alphas)}, beta {list(options.sweep_betas)} and budgets "
            f"{[b.label for b in options.sweep_budgets]}")
        points = sweep(graph, embedder, built.objects, list(options.sweep_alphas), list(options.sweep_betas),
                       list(options.sweep_budgets), judge, restore=(options.alpha, options.beta),
                       question=options.question)

    options.out.mkdir(parents=True, exist_ok=True)
    files = {"markdown": options.out / "eval.md", "json": options.out / "eval.json", "plot": options.out / "eval.png"}
    counts = graph.run("evaluation/graph_counts")[0]
    context = {"documents": len(built.documents), "chunks": counts["chunks"], "graph": counts,
               "ontology": built.ontology, "objects": len(built.objects), "provider": built.provider,
               "model": built.model, "embedder": embedder.name, "alpha": options.alpha, "beta": options.beta,
               "variants": [v.label for v in options.variants], "rag_settings": [s.label for s in options.rag_settings],
               "seconds": built.seconds, "analysis": {k: v for k, v in built.analysis.items() if k != "stages"},
               "searches": searches, "notes": notes,
               "triplet_graph": kg_status(graph) if searches else None}
    write_markdown(files["markdown"], context, summaries, verdicts, measurements, points, files["plot"].name)
    write_json(files["json"], context, summaries, verdicts, measurements, points)
    write_plot(files["plot"], measurements, summaries,
               f"{len(built.objects)} objects, {built.ontology}: median coverage against median prompt tokens")
    return EvalResult(summaries, verdicts, files, notes)
