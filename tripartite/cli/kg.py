"""The triplet graph of DB-GPT's GraphRAG: `kg extract`, `kg communities` and `kg status`.
Imports of the pipeline stay inside the commands, so --help stays fast."""
from __future__ import annotations

import sys

import click

from tripartite.cli.batches import submitted_lines
from tripartite.cli.common import (App, FiniteFloatRange, accounting_lines, concurrency_option, output, pass_app,
                                   progress, say)
from tripartite.infra.config import KgSettings

REDO_STAGES = {"extract": ("extraction",), "communities": ("report", "summary")}


def _accounting_lines(result: dict) -> list[str]:
    from tripartite.infra.llm.prices import cost_line

    if "requests" in result:  # --batch
        return submitted_lines(result)
    if "stages" not in result:  # a dry run
        priced = cost_line(result.get("cost"))
        return [f"provider {result['provider']}, model {result['model']}",
                f"{result['calls']} calls, {result['prompt_tokens']:,} prompt tokens (cl100k_base), "
                f"{result['cached']} answered from the cache" + result.get("note", "")] + ([priced] if priced else [])
    lines = accounting_lines(result["stages"])
    if result.get("without_text"):
        n = result["without_text"]
        lines.append(f"{n} chunk{'s' if n != 1 else ''} with too little text to extract from: recorded as read, "
                     "no call")
    if "graph" in result:  # where the triplet graph stands after the run (as `tripartite kg status` says it)
        lines.append(_standing_line(result["graph"]))
    for error in result["errors"][:3]:
        click.echo(f"error: {error}", err=True)
    if result["stopped"]:
        click.echo(f"error: the run stopped: {result['stopped']}; what was not done stays pending", err=True)
    return lines


def _failed(result: dict) -> int:
    return 1 if result.get("errors") or result.get("stopped") else 0


def _others_note(others: list[dict], stages: tuple[str, ...], provider, command: str) -> None:
    """Say what another provider or model made, and how to redo it."""
    found = [o for o in others if o["stage"] in stages]
    if found:
        made = ", ".join(f"{o['items']} {o['stage']}{'s' if o['items'] != 1 else ''} by {o['by']}" for o in found)
        say(f"note: {made}: not by this run's {provider.name}/{provider.model}; `tripartite kg {command} --redo` "
            "redoes them (--only-provider P for one provider's)")


def _show_cost_first(app: App, runner, tasks: list, what: str, yes: bool) -> None:
    """Before a redo: what it will spend; at a terminal, a question (--yes skips it)."""
    from tripartite.infra.llm.prices import cost, cost_line

    priced = cost_line(cost(app.settings, runner, tasks))
    due = [t for t in tasks if not runner.is_cached(t)]
    say(f"redo: {len(tasks)} {what}, {len(due)} calls" + (f"; {priced}" if priced else ""))
    if due and not runner.provider.offline and not yes and sys.stdin.isatty():
        click.confirm("go ahead?", abort=True, err=True)


def _cost_before_redo(app: App, redo: bool, what: str, yes: bool):
    """A batch's hook: before a redo's requests go, what they cost (and, at a terminal, a question)."""
    if not redo:
        return None
    return lambda runner, due: _show_cost_first(app, runner, due, what, yes)


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


def _redo_options(command):
    for option in reversed([
        click.option("--redo", is_flag=True,
                     help="Also redo what another provider or model made (for example the offline provider's, once "
                          "a model is configured), after showing what it costs."),
        click.option("--only-provider", metavar="PROVIDER", help="With --redo, only what this provider made "
                                                                 "(extractive, openai)."),
        click.option("--yes", is_flag=True, help="With --redo, do not ask before spending."),
    ]):
        command = option(command)
    return command


def _check_redo(redo: bool, only_provider: str | None) -> None:
    if only_provider and not redo:
        raise click.UsageError("--only-provider goes with --redo")


@kg_group.command("extract")
@click.option("--dry-run", is_flag=True, help="Print the calls and exact prompt tokens it would spend; change nothing.")
@click.option("--context-k", type=click.IntRange(min=0), default=None,
              help=f"How many of the most similar other chunks give context names (default {KgSettings.context_k}, "
                   "as DB-GPT, or [kg] context_k).")
@click.option("--min-similarity", type=FiniteFloatRange(-1, 1), default=None,
              help=f"The least cosine similarity of a context chunk (default {KgSettings.min_similarity}, as DB-GPT, "
                   "or [kg] min_similarity).")
@_redo_options
@concurrency_option
@_offline_option
@_batch_option
@output(_accounting_lines, exit_code=_failed)
@pass_app
def kg_extract(app: App, dry_run: bool, context_k: int | None, min_similarity: float | None, redo: bool,
               only_provider: str | None,
               yes: bool, concurrency: int, offline: bool, batch: bool) -> dict:
    """Extract entities and relations from every chunk not yet extracted (one call per chunk)."""
    from tripartite import batches
    from tripartite.infra.llm import open_runner
    from tripartite.infra.llm.prices import cost
    from tripartite.infra.locks import run_lock
    from tripartite.kg import extract

    _check_redo(redo, only_provider)
    context_k = app.settings.kg.context_k if context_k is None else context_k
    min_similarity = app.settings.kg.min_similarity if min_similarity is None else min_similarity
    if batch and not dry_run:
        return batches.submit(app.settings, app.graph, "kg-extract",
                              {"context_k": context_k, "min_similarity": min_similarity, "redo": redo,
                               "only_provider": only_provider},
                              before_sending=_cost_before_redo(app, redo, "chunks to extract", yes))
    offline_provider = extract.offline_extractor(app.graph)
    with open_runner(app.settings, offline_provider, offline=offline, concurrency=concurrency) as runner:
        provider = runner.provider
        head = {"provider": provider.name, "model": provider.model}

        def planned() -> extract.Plan:
            return extract.plan(app.graph, offline_provider, context_k, min_similarity, provider, redo, only_provider)

        if dry_run:
            plan = planned()
            if not redo:
                _others_note(extract.others(app.graph, provider), REDO_STAGES["extract"], provider, "extract")
            priced = cost(app.settings, runner, plan.tasks)
            return {**head, **extract.dry_run_figures(plan, runner.is_cached), **({"cost": priced} if priced else {})}
        with run_lock(app.graph, "kg", "kg extract or kg communities", say):
            plan = planned()
            if redo:
                _show_cost_first(app, runner, plan.tasks, "chunks to extract", yes)
            else:
                _others_note(extract.others(app.graph, provider), REDO_STAGES["extract"], provider, "extract")
            with progress(f"Extracting ({provider.name})", len(plan.tasks)) as bar:
                done = extract.execute(app.graph, runner, plan, on_done=bar.update)
            return {**head, **done, "without_text": len(plan.empty),
                    "graph": extract.status(app.graph, app.settings.kg.min_size)}


@kg_group.command("communities")
@click.option("--dry-run", is_flag=True,
              help="Detect the communities, then print the report calls and exact prompt tokens it would spend.")
@click.option("--min-size", type=click.IntRange(min=2), default=None,
              help=f"Communities smaller than this get no report (default {KgSettings.min_size}, or [kg] min_size).")
@_redo_options
@concurrency_option
@_offline_option
@_batch_option
@output(_accounting_lines, exit_code=_failed)
@pass_app
def kg_communities(app: App, dry_run: bool, min_size: int | None, redo: bool, only_provider: str | None, yes: bool,
                   concurrency: int, offline: bool, batch: bool) -> dict:
    """Leiden communities of the entity graph (Graph Data Science), then a report for each community
    that has none or whose members' content changed."""
    from tripartite import batches
    from tripartite.infra.embeddings import chunk_embedder
    from tripartite.infra.llm import open_runner
    from tripartite.infra.llm.prices import cost
    from tripartite.infra.locks import run_lock
    from tripartite.kg import communities, extract
    from tripartite.kg.extractive import ReportWriter

    _check_redo(redo, only_provider)
    min_size = app.settings.kg.min_size if min_size is None else min_size
    with run_lock(app.graph, "kg", "kg extract or kg communities", say):
        detected = communities.detect(app.graph)
        if detected["unextracted"]:
            say(f"note: {detected['unextracted']:,} of {detected['chunks']:,} chunks are not extracted yet (a `kg "
                "extract` that was interrupted or not run since documents were added), so the communities cover only "
                "part of the documents; run `tripartite kg extract`, then `tripartite kg communities` again")
        if batch and not dry_run:  # the communities are in the graph now; their reports go in a batch
            return {**batches.submit(app.settings, app.graph, "kg-reports",
                                     {"min_size": min_size, "redo": redo, "only_provider": only_provider},
                                     before_sending=_cost_before_redo(app, redo, "reports and summaries", yes)),
                    **detected}
        with open_runner(app.settings, ReportWriter(), offline=offline, concurrency=concurrency) as runner:
            provider = runner.provider
            redo_by = extract.made_by(provider) if redo else None
            summaries = communities.summary_tasks(app.graph, redo_by, only_provider)
            tasks = communities.report_tasks(app.graph, min_size, redo_by, only_provider)
            head = {"provider": provider.name, "model": provider.model, **detected}
            if not redo:
                _others_note(extract.others(app.graph, provider), REDO_STAGES["communities"], provider, "communities")
            if dry_run:
                figures = communities.dry_run_figures([*summaries, *tasks], runner.is_cached)
                priced = cost(app.settings, runner, [*summaries, *tasks])
                figures.update({"cost": priced} if priced else {})
                return {**head, **figures, "note": f" ({len(tasks)} reports, {len(summaries)} entity summaries; "
                                                   f"{detected['communities']} communities)"}
            if redo:
                _show_cost_first(app, runner, [*summaries, *tasks], "reports and summaries", yes)
            with progress(f"Reporting ({provider.name})", len(summaries) + len(tasks)) as bar:
                done = communities.report(app.graph, runner, chunk_embedder(app.settings, offline), tasks, summaries,
                                          on_done=bar.update)
            return {**head, **done, "graph": extract.status(app.graph, min_size)}


def _standing_line(s: dict) -> str:
    return (f"{s['extracted']} of {s['chunks']} chunks extracted; {s['entities']} entities, {s['relations']} "
            f"relations, {s['concept_links']} linked to ontology concepts; {s['communities']} communities, "
            f"{s['reports']} with a report")


def _status_lines(s: dict) -> list[str]:
    lines = [_standing_line(s)]
    if s["unreported"]:
        lines.append(f"{s['unreported']} communities of {s['min_size']} or more members have no report (new, "
                     "or withdrawn because their documents changed): run `tripartite kg communities`")
    if s["other_context"]:
        lines.append(f"{s['other_context']} chunks were extracted offline with another ontology or corpus than now: "
                     "`tripartite kg extract` extracts again those whose answer changed")
    if s["stale_concepts"]:
        lines.append(f"{s['stale_concepts']} entities were extracted as concepts of an ontology no longer loaded as it "
                     "was: run `tripartite kg extract` to extract them again")
    if s["undescribed"]:
        lines.append(f"{s['undescribed']} entities' descriptions are not written from their chunks as they are now "
                     "(an extraction or a removal was interrupted): `tripartite kg extract` writes them")
    for other in s["others"]:
        lines.append(f"{other['items']} {other['stage']}{'s' if other['items'] != 1 else ''} by {other['by']}, not "
                     f"the configured {s['configured']}")
    return lines


@kg_group.command("status")
@output(_status_lines)
@pass_app
def kg_status(app: App) -> dict:
    """How far the triplet graph is, and who made it."""
    from tripartite.infra.llm.providers import make_provider
    from tripartite.kg import extract

    status = extract.status(app.graph, app.settings.kg.min_size)
    offline = extract.offline_extractor(app.graph)
    provider = make_provider(app.settings, offline)
    configured = extract.made_by(provider)
    others = extract.others(app.graph, provider)
    behind = 0
    # Offline, reports and summaries are the ReportWriter's, extractions the TripletExtractor's.
    if provider.offline:
        others = [o for o in others if not o["by"].startswith(f"{provider.name}/")]
        # Chunks too short to extract keep no fingerprint and have no answer to change: not counted.
        behind = sum(1 for row in app.graph.run("kg/offline_extractions", version=extract.version(), by=configured,
                                                context=offline.context_hash) if row["fingerprint"])
    return {**status, "configured": configured, "others": others, "other_context": behind}


COMMANDS = [kg_group]
