"""The LLM stages through the OpenAI Batch API: `analyze --batch`, `kg extract --batch` and
`kg communities --batch` submit; `tripartite batches list|status|collect` follow and collect.

Nothing about a batch is kept outside the graph and the answer cache: a stage is planned
again when its batch is collected (plans are deterministic: the same graph gives the same
prompts), every answer that arrives is parsed and cached under its task's key (the line's
custom_id), and the stage's own writer then runs over the cached tasks, exactly as a live run
that finds its answers in the cache. Requests that failed or expired stay pending: the next
run of the stage (live or --batch) sends only them."""
from __future__ import annotations

import json
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from tripartite.infra.config import Settings
from tripartite.infra.errors import TripartiteError
from tripartite.infra.graph import Graph
from tripartite.infra.locks import run_lock
from tripartite.infra.llm import batch as batch_api

STAGES = ("analysis", "kg-extract", "kg-reports")
COMMANDS = {"analysis": "analyze", "kg-extract": "kg extract", "kg-reports": "kg communities"}


@dataclass
class StageWork:
    runner: Any
    tasks: list                         # the tasks that need an LLM call, cached or not
    write: Callable[[], dict]           # the stage's writer over the tasks whose answers are cached


def _lock_of(stage: str) -> str:
    """The run lock the stage's live command takes."""
    return "analyze" if stage == "analysis" else "kg"


@contextmanager
def open_stage(stage: str, settings: Settings, graph: Graph, params: dict) -> Iterator[StageWork]:
    """The stage planned now, with its runner (the configured model) and its writer, under the
    lock its live command takes (no task planned twice at once)."""
    with run_lock(graph, _lock_of(stage), COMMANDS.get(stage, stage)):
        with _open_stage(stage, settings, graph, params) as work:
            yield work


@contextmanager
def _open_stage(stage: str, settings: Settings, graph: Graph, params: dict) -> Iterator[StageWork]:
    if stage == "analysis":
        from tripartite.analysis import open_analyzer
        from tripartite.analysis.analyzer import Plan

        with open_analyzer(settings, graph, prefilter=params.get("prefilter", True),
                           ontology=params.get("ontology")) as analyzer:
            plan = analyzer.plan(redo=params.get("redo", False), only_provider=params.get("only_provider"))
            tasks = [t for t in plan.chunk_tasks + plan.object_tasks if t.concepts]

            def write() -> dict:
                cached = analyzer.runner.is_cached
                ready = Plan([t for t in plan.chunk_tasks if not t.concepts or cached(t)],
                             [t for t in plan.object_tasks if not t.concepts or cached(t)], plan.skipped,
                             plan.skipped_objects)
                return analyzer.run(ready)
            yield StageWork(analyzer.runner, tasks, write)
    elif stage == "kg-extract":
        from tripartite.infra.llm import open_runner
        from tripartite.kg import extract

        offline = extract.offline_extractor(graph)
        with open_runner(settings, offline) as runner:
            plan = extract.plan(graph, offline, params.get("context_k", settings.kg.context_k),
                                params.get("min_similarity", settings.kg.min_similarity),
                                runner.provider, params.get("redo", False), params.get("only_provider"))

            def write() -> dict:
                ready = [t for t in plan.tasks if runner.is_cached(t)]
                ids = {t.item_id for t in ready}
                return extract.execute(graph, runner, extract.Plan(ready, plan.empty, [c for c in plan.redo if c in ids]))
            yield StageWork(runner, plan.tasks, write)
    elif stage == "kg-reports":
        from tripartite.infra.embeddings import chunk_embedder
        from tripartite.infra.llm import open_runner
        from tripartite.kg import communities, extract
        from tripartite.kg.extractive import ReportWriter

        with open_runner(settings, ReportWriter()) as runner:
            redo_by = extract.made_by(runner.provider) if params.get("redo") else None
            summaries = communities.summary_tasks(graph, redo_by, params.get("only_provider"))
            reports = communities.report_tasks(graph, params.get("min_size", settings.kg.min_size), redo_by,
                                               params.get("only_provider"))

            def write() -> dict:
                cached = runner.is_cached
                return communities.report(graph, runner, chunk_embedder(settings, False),
                                          [t for t in reports if cached(t)], [t for t in summaries if cached(t)])
            yield StageWork(runner, [*summaries, *reports], write)
    else:
        raise TripartiteError(f"unknown batch stage {stage!r}; one of {', '.join(STAGES)}")


def submit(settings: Settings, graph: Graph, stage: str, params: dict,
           before_sending: Callable[[Any, list], None] | None = None) -> dict:
    """Send the stage's uncached tasks as one batch and remember it in the graph, all under the
    stage's lock: a second submit at the same time waits, then finds this batch open and
    refuses, so no request is sent twice. `before_sending(runner, tasks)` sees what is due
    first (a redo shows its cost there)."""
    with run_lock(graph, _lock_of(stage), COMMANDS.get(stage, stage)):
        open_batches = graph.run("infra/batches", id=None, open=True)
        waiting = next((b for b in open_batches if b["stage"] == stage), None)
        if waiting:
            raise TripartiteError(f"batch {waiting['id']} for {stage} is not collected yet; run `tripartite batches "
                                  "collect` first (its answers would be paid twice)")
        with _open_stage(stage, settings, graph, params) as work:  # the lock is held already
            provider = work.runner.provider
            if provider.offline:
                raise TripartiteError("--batch needs a configured model (TRIPARTITE_LLM_MODEL, OPENAI_API_KEY); the "
                                      "offline provider answers at once, so run without --batch")
            due = [t for t in work.tasks if not work.runner.is_cached(t)]
            if not due:
                return {"stage": stage, "id": None, "requests": 0, "cached": len(work.tasks)}
            if before_sending is not None:
                before_sending(work.runner, due)
            sent = batch_api.submit(work.runner, due, stage)
        graph.run("infra/record_batch", batch={**sent, "stage": stage, "params": json.dumps(params, sort_keys=True),
                                               "provider": provider.name, "model": provider.model,
                                               "endpoint": provider.where})
    return {"stage": stage, **sent, "cached": len(work.tasks) - len(due)}


def status(settings: Settings, graph: Graph, batch_id: str | None) -> list[dict]:
    """Each open batch (or the one named) with its state as the API reports it now."""
    from tripartite.infra.llm import open_runner

    rows = _batches(graph, batch_id, open_only=batch_id is None)
    with open_runner(settings) as runner:
        for row in rows:
            if not row["collected"]:
                fresh = _refresh(graph, runner, row["id"])
                row.update({name: fresh[name] for name in REFRESHED})
    return rows


def collect(settings: Settings, graph: Graph, batch_id: str | None) -> list[dict]:
    """Collect every finished open batch (or the one named): answers into the cache, then the
    stage's writer. Batches still running are reported and left for later."""
    from tripartite.infra.llm import open_runner

    rows = _batches(graph, batch_id, open_only=True)
    with open_runner(settings) as runner:
        seen = [(row, _refresh(graph, runner, row["id"])) for row in rows]
    results = []
    for row, fresh in seen:
        if fresh["state"] not in batch_api.TERMINAL:
            results.append({**row, **fresh, "collected": False, "note": "still running; collect again later"})
            continue
        results.append(_collect_one(settings, graph, row, fresh))
    return results


REFRESHED = ("state", "completed", "failed")  # what a status read updates in the graph


def _refresh(graph: Graph, runner, batch_id: str) -> dict:
    """The batch's state as the API reports it now, stored in the graph as last seen."""
    fresh = batch_api.refresh(runner, batch_id)
    graph.run("infra/update_batch", id=batch_id, changes={name: fresh[name] for name in REFRESHED})
    return fresh


def _collect_one(settings: Settings, graph: Graph, row: dict, fresh: dict) -> dict:
    with open_stage(row["stage"], settings, graph, json.loads(row["params"] or "{}")) as work:
        runner = work.runner
        if (runner.provider.name, runner.provider.model) != (row["provider"], row["model"]):
            raise TripartiteError(f"batch {row['id']} was sent to {row['provider']}/{row['model']}, but the configured "
                                  f"model is {runner.provider.name}/{runner.provider.model}; configure that model to "
                                  "collect it")
        by_key = {runner.key(t): t for t in work.tasks}
        answered, failed, stale, errors = 0, 0, 0, []
        for line in batch_api.lines(runner, fresh["output_file_id"]) + batch_api.lines(runner, fresh["error_file_id"]):
            task = by_key.get(line.custom_id)
            if task is None:
                stale += 1  # the graph moved on: no task asks this any more
                continue
            if line.error:
                error = f"{task.stage} {task.item_id}: {line.error}"
            else:
                error = runner.accept(task, line.content, line.finish_reason, line.usage)
            if error:
                failed += 1
                errors.append(error)
            else:
                answered += 1
        written = work.write()
        unanswered = sum(1 for t in work.tasks if not runner.is_cached(t))
    graph.run("infra/update_batch", id=row["id"], changes={"collected": True, "answered": answered,
                                                            "failed": failed, "stale": stale})
    return {**row, **fresh, "collected": True, "answered": answered, "failed": failed, "stale": stale,
            "pending": unanswered, "errors": errors + list(written.get("errors") or []),
            "command": COMMANDS[row["stage"]]}


def list_batches(graph: Graph) -> list[dict]:
    return _batches(graph, None, open_only=False)


def _batches(graph: Graph, batch_id: str | None, open_only: bool) -> list[dict]:
    rows = graph.run("infra/batches", id=batch_id, open=open_only and batch_id is None)
    if batch_id and not rows:
        raise TripartiteError(f"no batch {batch_id!r} in this graph; `tripartite batches list` shows them")
    return rows
