"""The whole triplet graph in one step, for `eval`: extraction of every chunk not yet
extracted, then communities and reports where the server has Graph Data Science. The same
calls `kg extract` and `kg communities` make, with the settings' [kg] values."""
from __future__ import annotations

from typing import Callable

from tripartite.infra.config import Settings
from tripartite.infra.errors import TripartiteError
from tripartite.infra.graph import Graph
from tripartite.infra.llm import open_runner
from tripartite.infra.locks import run_lock
from tripartite.kg import communities, extract
from tripartite.kg.extractive import ReportWriter


def build_triplet_graph(settings: Settings, graph: Graph, embedder, say: Callable[[str], None],
                        offline: bool = False, concurrency: int | None = None) -> dict:
    """Extract, then detect and report communities. Returns {"errors": [...], "communities":
    the count, or None without Graph Data Science, "note": why not}."""
    with run_lock(graph, "kg", "kg extract or kg communities", say):
        offline_extractor = extract.offline_extractor(graph)
        with open_runner(settings, offline_extractor, offline=offline, concurrency=concurrency) as runner:
            plan = extract.plan(graph, offline_extractor, settings.kg.context_k, settings.kg.min_similarity,
                                provider=runner.provider)
            say(f"triplet graph ({runner.provider.name}): {len(plan.tasks)} chunk calls")
            done = extract.execute(graph, runner, plan)
        errors = list(done["errors"]) + ([f"the run stopped: {done['stopped']}"] if done["stopped"] else [])
        try:
            communities.require_gds(graph)
        except TripartiteError as exc:
            return {"errors": errors, "communities": None, "note": str(exc)}
        detected = communities.detect(graph)
        with open_runner(settings, ReportWriter(), offline=offline, concurrency=concurrency) as runner:
            summaries, tasks = communities.summary_tasks(graph), communities.report_tasks(graph, settings.kg.min_size)
            say(f"communities: {detected['communities']}; {len(tasks)} reports, {len(summaries)} entity summaries")
            reported = communities.report(graph, runner, embedder, tasks, summaries)
    errors += reported["errors"] + ([f"the run stopped: {reported['stopped']}"] if reported["stopped"] else [])
    return {"errors": errors, "communities": detected["communities"], "note": ""}
