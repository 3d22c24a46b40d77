"""The pre-analysis: `analyze`."""
from __future__ import annotations

import click

from tripartite.analysis import dry_run_figures, open_analyzer
from tripartite.cli.common import App, output, pass_app, progress
from tripartite.infra.errors import TripartiteError


def _dry_run_lines(result: dict) -> list[str]:
    lines = [f"provider {result['provider']}, model {result['model']}"]
    for stage in ("chunk", "object"):
        f = result[stage]
        lines.append(f"{stage:<7} {f['calls']:>6} calls  {f['prompt_tokens']:>9} prompt tokens (cl100k_base)  "
                     f"{f['cached']:>5} answered from the cache")
    pairs = result["pairs"]
    lines.append(f"(concept, chunk) pairs: {pairs['naive_calls']} (one call each in the naive scheme), "
                 f"{pairs['after_prefilter']} after the pre-filter")
    return lines


def _run_lines(result: dict) -> list[str]:
    if "stages" not in result:
        return _dry_run_lines(result)
    lines = [f"{'stage':<7} {'tasks':>6} {'calls':>6} {'cached':>6} {'retries':>7} {'repairs':>7} "
             f"{'failed':>6} {'prompt tok':>10} {'completion':>10}"]
    for stage, st in result["stages"].items():
        lines.append(f"{stage:<7} {st['tasks']:>6} {st['calls']:>6} {st['cache_hits']:>6} {st['retries']:>7} "
                     f"{st['repairs']:>7} {st['failures']:>6} {st['prompt_tokens']:>10} {st['completion_tokens']:>10}")
    errors = result["errors"]
    for error in errors[:3]:
        click.echo(f"error: {error}", err=True)
    if len(errors) > 3:
        click.echo(f"error: ... and {len(errors) - 3} more failed tasks; they stay pending, run analyze again", err=True)
    if result["stopped"]:
        click.echo(f"error: the run stopped: {result['stopped']}; the tasks not sent stay pending", err=True)
    return lines


@click.command("analyze")
@click.option("--dry-run", is_flag=True, help="Print the calls and prompt tokens it would spend; change nothing.")
@click.option("--ontology", help="Only this ontology's concepts (default: all loaded).")
@click.option("--concurrency", type=int, default=4, show_default=True, help="LLM calls in flight at once.")
@click.option("--no-prefilter", is_flag=True, help="Send every (concept, chunk) pair to the LLM.")
@output(_run_lines, exit_code=lambda result: 1 if result.get("errors") or result.get("stopped") else 0)
@pass_app
def analyze_command(app: App, dry_run: bool, ontology: str | None, concurrency: int, no_prefilter: bool) -> dict:
    """Extract what each chunk and object says about each concept (e(c,t) and e(o,c))."""
    with open_analyzer(app.settings, app.graph, concurrency=concurrency, prefilter=not no_prefilter,
                       ontology=ontology) as analyzer:
        if not analyzer.concepts:
            raise TripartiteError("no concepts loaded; run `tripartite ontology load cardiology` first")
        provider = analyzer.runner.provider
        plan = analyzer.plan()
        figures = dry_run_figures(plan, analyzer.runner.is_cached)
        if dry_run:
            return {"provider": provider.name, "model": provider.model, **figures}
        with progress(f"Analysing ({provider.name})", len(plan.chunk_tasks) + len(plan.object_tasks)) as bar:
            report = analyzer.run(plan, on_done=bar.update)
    return {"provider": provider.name, "model": provider.model, **report, "pairs": figures["pairs"]}


COMMANDS = [analyze_command]
