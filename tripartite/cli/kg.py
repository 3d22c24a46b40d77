"""The triplet graph of DB-GPT's GraphRAG: `kg extract`, `kg communities` and `kg status`."""
from __future__ import annotations

import click

from tripartite import batches
from tripartite.cli.batches import submitted_lines
from tripartite.cli.common import App, accounting_lines, concurrency_option, output, pass_app, progress
from tripartite.infra.embeddings import chunk_embedder
from tripartite.infra.llm import open_runner
from tripartite.kg import communities, extract
from tripartite.kg.extractive import ReportWriter
from tripartite.infra.llm.prices import cost, cost_line
from tripartite.kg.prompts import version


def _accounting_lines(result: dict) -> list[str]:
    if "requests" in result:  # --batch
        return submitted_lines(result)
    if "stages" not in result:  # a dry run
        priced = cost_line(result.get("cost"))
        return [f"provider {result['provider']}, model {result['model']}",
                f"{result['calls']} calls, {result['prompt_tokens']:,} prompt tokens (cl100k_base), "
                f"{result['cached']} answered from the cache" + result.get("note", "")] + ([priced] if priced else [])
    lines = accounting_lines(result["stages"])
    for error in result["errors"][:3]:
        click.echo(f"error: {error}", err=True)
    if result["stopped"]:
        click.echo(f"error: the run stopped: {result['stopped']}; what was not done stays pending", err=True)
    return lines


def _failed(result: dict) -> int:
    return 1 if result.get("errors") or result.get("stopped") else 0


@click.group("kg")
def kg_group() -> None:
    """The triplet graph (DB-GPT's GraphRAG): entities and relations from every chunk, and their
    Leiden communities with reports."""


def _batch_option(command):
    return click.option("--batch", is_flag=True,
                        help="Send the calls to the OpenAI Batch API (half price, within 24 h); `tripartite batches "
                             "collect` writes the answers.")(command)


def _offline_option(command):
    return click.option("--offline", is_flag=True,
                        help="The offline extractive providers, even if an LLM is configured.")(command)


_concurrency_option = concurrency_option


@kg_group.command("extract")
@click.option("--dry-run", is_flag=True, help="Print the calls and exact prompt tokens it would spend; change nothing.")
@click.option("--context-k", type=click.IntRange(min=0), default=5, show_default=True,
              help="How many of the most similar other chunks give context names (DB-GPT: 5).")
@click.option("--min-similarity", type=click.FloatRange(-1, 1), default=0.3, show_default=True,
              help="The least cosine similarity of a context chunk (DB-GPT: 0.3).")
@_concurrency_option
@_offline_option
@_batch_option
@output(_accounting_lines, exit_code=_failed)
@pass_app
def kg_extract(app: App, dry_run: bool, context_k: int, min_similarity: float, concurrency: int,
               offline: bool, batch: bool) -> dict:
    """Extract entities and relations from every chunk not yet extracted (one call per chunk)."""
    if batch and not dry_run:
        return batches.submit(app.settings, app.graph, "kg-extract",
                              {"context_k": context_k, "min_similarity": min_similarity})
    offline_provider = extract.offline_extractor(app.graph)
    with open_runner(app.settings, offline_provider, offline=offline, concurrency=concurrency) as runner:
        plan = extract.plan(app.graph, offline_provider, context_k, min_similarity)
        provider = runner.provider
        head = {"provider": provider.name, "model": provider.model}
        if dry_run:
            priced = cost(app.settings, runner, plan.tasks)
            return {**head, **extract.dry_run_figures(plan, runner.is_cached), **({"cost": priced} if priced else {})}
        with progress(f"Extracting ({provider.name})", len(plan.tasks)) as bar:
            return {**head, **extract.execute(app.graph, runner, plan, on_done=bar.update)}


@kg_group.command("communities")
@click.option("--dry-run", is_flag=True,
              help="Detect the communities, then print the report calls and exact prompt tokens it would spend.")
@click.option("--min-size", type=click.IntRange(min=2), default=communities.MIN_SIZE, show_default=True,
              help="Communities smaller than this get no report.")
@_concurrency_option
@_offline_option
@_batch_option
@output(_accounting_lines, exit_code=_failed)
@pass_app
def kg_communities(app: App, dry_run: bool, min_size: int, concurrency: int, offline: bool, batch: bool) -> dict:
    """Leiden communities of the entity graph (Graph Data Science), then a report for each new one."""
    detected = communities.detect(app.graph)
    if batch and not dry_run:  # the communities are in the graph now; their reports go in a batch
        return {**batches.submit(app.settings, app.graph, "kg-reports", {"min_size": min_size}), **detected}
    with open_runner(app.settings, ReportWriter(), offline=offline, concurrency=concurrency) as runner:
        summaries = communities.summary_tasks(app.graph)
        tasks = communities.report_tasks(app.graph, min_size)
        provider = runner.provider
        head = {"provider": provider.name, "model": provider.model, **detected}
        if dry_run:
            figures = communities.dry_run_figures([*summaries, *tasks], runner.is_cached)
            priced = cost(app.settings, runner, [*summaries, *tasks])
            figures.update({"cost": priced} if priced else {})
            return {**head, **figures, "note": f" ({len(tasks)} reports, {len(summaries)} entity summaries; "
                                               f"{detected['communities']} communities)"}
        with progress(f"Reporting ({provider.name})", len(summaries) + len(tasks)) as bar:
            return {**head, **communities.report(app.graph, runner, chunk_embedder(app.settings, offline), tasks,
                                                 summaries, on_done=bar.update)}


@kg_group.command("status")
@output(lambda s: [f"{s['extracted']} of {s['chunks']} chunks extracted; {s['entities']} entities, {s['relations']} "
                   f"relations, {s['concept_links']} linked to ontology concepts; {s['communities']} communities, "
                   f"{s['reports']} with a report"])
@pass_app
def kg_status(app: App) -> dict:
    """How far the triplet graph is."""
    return app.graph.one("kg/status", version=version())


COMMANDS = [kg_group]
