"""The pre-analysis: `analyze`. Imports of the pipeline stay inside the commands, so --help
stays fast."""
from __future__ import annotations

import click

from tripartite.cli.batches import submitted_lines
from tripartite.cli.common import App, accounting_lines, concurrency_option, output, pass_app, progress, say
from tripartite.infra.config import AnalysisSettings
from tripartite.infra.errors import TripartiteError


def _dry_run_lines(result: dict) -> list[str]:
    from tripartite.infra.llm.prices import cost_line

    lines = [f"provider {result['provider']}, model {result['model']}"]
    for stage in ("chunk", "object"):
        f = result[stage]
        lines.append(f"{stage:<7} {f['calls']:>6} calls  {f['prompt_tokens']:>9} prompt tokens (cl100k_base)  "
                     f"{f['cached']:>5} answered from the cache")
    pairs = result["pairs"]
    lines.append(f"(concept, chunk) pairs: {pairs['naive_calls']} (one call each in the naive scheme), "
                 f"{pairs['after_prefilter']} after the pre-filter")
    priced = cost_line(result.get("cost"))
    return lines + ([priced] if priced else [])


def _others_note(result: dict) -> None:
    for failed in result.get("failed_before") or []:
        say(f"note: {failed['failed']} {failed['stage']}s failed when last tried (first: {failed['errors'][0]}); "
            "this run tries them again")
    others = result.get("others") or []
    if others:
        found = ", ".join(f"{o['items']} {o['stage']}s by {o['by']}" for o in others)
        say(f"note: {found} were analysed by another provider or model than this run's "
            f"({result['provider']}/{result['model']}); `tripartite analyze --redo` redoes them "
            "(--only-provider P for one provider's)")


def _run_lines(result: dict) -> list[str]:
    if "requests" in result:  # --batch
        return submitted_lines(result)
    if "stages" not in result:
        _others_note(result)
        return _dry_run_lines(result)
    lines = accounting_lines(result["stages"])
    _others_note(result)
    errors = result["errors"]
    for error in errors[:3]:
        click.echo(f"error: {error}", err=True)
    if len(errors) > 3:
        click.echo(f"error: ... and {len(errors) - 3} more failed tasks; they stay pending, run analyze again", err=True)
    if result["stopped"]:
        click.echo(f"error: the run stopped: {result['stopped']}; the tasks not sent stay pending", err=True)
    return lines


@click.command("analyze")
@click.option("--dry-run", is_flag=True,
              help="Print the calls and prompt tokens it would spend; no extract is written (the concepts' gloss "
                   "embeddings the pre-filter needs are kept on them for the next run).")
@click.option("--ontology", help="Only this ontology's concepts (default: all loaded).")
@concurrency_option
@click.option("--no-prefilter", is_flag=True,
              help="Send every (concept, chunk) pair to the LLM (the pre-filter drops a pair whose chunk neither "
                   f"names the concept nor is within {AnalysisSettings.prefilter_similarity} cosine of its gloss, or "
                   "[analysis] prefilter_similarity).")
@click.option("--redo", is_flag=True,
              help="Also analyse again every chunk and object whose extracts another provider or model made "
                   "(for example the offline provider's, once a model is configured).")
@click.option("--only-provider", metavar="PROVIDER",
              help="With --redo, only what this provider made (extractive, openai).")
@click.option("--offline", is_flag=True, help="The offline extractive provider, even if an LLM is configured.")
@click.option("--batch", is_flag=True, help="Send the calls to the OpenAI Batch API (half price, within 24 h); "
                                            "`tripartite batches collect` writes the answers.")
@output(_run_lines, exit_code=lambda result: 1 if result.get("errors") or result.get("stopped") else 0)
@pass_app
def analyze_command(app: App, dry_run: bool, ontology: str | None, concurrency: int | None, no_prefilter: bool,
                    redo: bool, only_provider: str | None, offline: bool, batch: bool) -> dict:
    """Extract what each chunk and object says about each concept (e(c,t) and e(o,c))."""
    from tripartite import batches
    from tripartite.analysis import dry_run_figures, open_analyzer
    from tripartite.infra.llm.prices import cost
    from tripartite.infra.locks import run_lock

    if only_provider and not redo:
        raise click.UsageError("--only-provider goes with --redo")
    if batch and not dry_run:
        if offline:
            raise click.UsageError("--batch sends the calls to a model; it does not go with --offline")
        return batches.submit(app.settings, app.graph, "analysis", {"ontology": ontology, "prefilter": not no_prefilter,
                                                                    "redo": redo, "only_provider": only_provider})
    with open_analyzer(app.settings, app.graph, offline=offline, concurrency=concurrency, prefilter=not no_prefilter,
                       ontology=ontology) as analyzer:
        if not analyzer.concepts:
            if ontology:
                from tripartite.ontology.store import list_ontologies

                loaded = ", ".join(row["id"] for row in list_ontologies(app.graph)) or "none"
                raise TripartiteError(f"no ontology {ontology!r} is loaded (loaded: {loaded}); give one of those to "
                                      "--ontology, or load it with `tripartite ontology load`")
            raise TripartiteError("no concepts loaded; run `tripartite ontology load cardiology` first")
        provider = analyzer.runner.provider
        failed_before = analyzer.failed_before()
        if dry_run:
            plan = analyzer.plan(redo=redo, only_provider=only_provider)
            figures = dry_run_figures(plan, analyzer.runner.is_cached)
            others = [] if redo else analyzer.analysed_by_others()
            return {"provider": provider.name, "model": provider.model, **figures, "others": others,
                    "failed_before": failed_before,
                    "cost": cost(app.settings, analyzer.runner, plan.chunk_tasks + plan.object_tasks)}
        with run_lock(app.graph, "analyze", "analyze", say):  # planned under the lock: no call paid twice
            plan = analyzer.plan(redo=redo, only_provider=only_provider)
            figures = dry_run_figures(plan, analyzer.runner.is_cached)
            with progress(f"Analysing ({provider.name})", len(plan.chunk_tasks) + len(plan.object_tasks)) as bar:
                report = analyzer.run(plan, on_done=bar.update)
    return {"provider": provider.name, "model": provider.model, **report, "pairs": figures["pairs"],
            "failed_before": failed_before}


COMMANDS = [analyze_command]
