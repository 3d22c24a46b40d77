"""Measuring prompts: `eval` on the user's inputs, `tune` on the loaded objects, `demo` on the
built-in sample. Imports of the pipeline stay inside the commands, so --help stays fast."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from tripartite.cli.common import (FINITE, App, budget_list, concurrency_option, emit_json, number_list, pass_app,
                                   probability, say)
from tripartite.cli.defaults import SEARCH_LABELS
from tripartite.cli.server import ensure_server
from tripartite.infra.config import SelectionSettings

if TYPE_CHECKING:
    from tripartite.evaluation.tune import Budget


def search_list(ctx, param, value: str) -> tuple[str, ...]:
    """--search: comma-separated search modes (local, global), or none."""
    if value.strip().lower() == "none":
        return ()
    modes = tuple(dict.fromkeys(v.strip().lower() for v in value.split(",") if v.strip()))
    unknown = [m for m in modes if m not in SEARCH_LABELS]
    if unknown or not modes:
        raise click.BadParameter(f"{value!r}: give local, global, both (local,global) or none", param_hint="--search")
    return modes


def mode_list(ctx, param, value: str) -> tuple[str, ...]:
    """--modes: comma-separated question modes."""
    from tripartite.cli.defaults import QUESTION_MODES

    modes = tuple(dict.fromkeys(v.strip().lower() for v in value.split(",") if v.strip()))
    unknown = [m for m in modes if m not in QUESTION_MODES]
    if unknown or not modes:
        raise click.BadParameter(f"{value!r}: give some of {', '.join(QUESTION_MODES)}", param_hint="--modes")
    return modes


@click.command("eval")
@click.argument("inputs", nargs=-1, metavar="[DOCUMENTS]... ONTOLOGY OBJECTS")
@click.option("--questions", "questions_file", type=click.Path(dir_okay=False), default=None,
              help="Instead: measure every prompt builder on the free-text questions of this YAML file (question "
                   "plus answer phrases or answer chunk ids; see docs/search.md), on the graph as it is loaded.")
@click.option("--modes", default="tripartite,rag,hybrid,local,global", show_default=True, callback=mode_list,
              help="With --questions: the prompt builders to compare.")
@click.option("--budgets", "question_budgets", default="500,1000,2000", show_default=True,
              callback=number_list(int, "--budgets", low=200), help="With --questions: the token budgets to ask for.")
@click.option("--kind", help="The objects' kind (default: the plugin's, else 'object').")
@click.option("--alpha", type=FINITE, default=None, callback=probability("--alpha"),
              help=f"Alpha of the selection (default {SelectionSettings.alpha}, or [selection] alpha).")
@click.option("--beta", type=FINITE, default=None, callback=probability("--beta"),
              help=f"Beta of the selection (default {SelectionSettings.beta}, or [selection] beta).")
@click.option("--max-tokens", "budgets", default="", callback=budget_list("--max-tokens"),
              help="Also measure Tripartite prompts within these token budgets, e.g. 800,1200.")
@click.option("--max-per-concept", "per_concept", default="1", show_default=True,
              callback=number_list(int, "--max-per-concept", allow_none=True, low=1),
              help="Also measure Tripartite prompts keeping each concept's N best extracts ('none' for no such rows).")
@click.option("--top-k", default="1,3,5,10,20,40", show_default=True, callback=number_list(int, "--top-k", low=1),
              help="RAG settings: the k best chunks.")
@click.option("--min-score", default="0.68,0.66,0.64,0.62", show_default=True,
              callback=number_list(float, "--min-score", low=0, high=1, allow_none=True),
              help="RAG settings: every chunk with score (1 + cos) / 2 at least this ('none' for no such rows).")
@click.option("--sweep-alpha", default="0.8,0.9,0.95", show_default=True,
              callback=number_list(float, "--sweep-alpha", low=0, high=1, allow_none=True),
              help="Alphas of the sweep ('none': no sweep).")
@click.option("--sweep-beta", default="0.3,0.5", show_default=True,
              callback=number_list(float, "--sweep-beta", low=0, high=1))
@click.option("--sweep-max-tokens", default="none,800,1200", show_default=True,
              callback=budget_list("--sweep-max-tokens"), help="Absolute budgets of the sweep ('none': no budget).")
@click.option("--sweep-tokens-per-concept", default="50,70,90", show_default=True,
              callback=budget_list("--sweep-tokens-per-concept"), help="Per-concept budgets of the sweep.")
@click.option("--search", "searches", default="local,global", show_default=True, callback=search_list,
              help="Also measure DB-GPT's GraphRAG prompts, local and global search over the triplet graph, which "
                   "eval builds (kg extract, kg communities) ('none': no such rows).")
@click.option("--question", default=None, help="The question in every prompt (default: the plugin's).")
@click.option("--out", default="eval-results", show_default=True, type=click.Path(file_okay=False),
              help="Folder for eval.md, eval.json and eval.png.")
@click.option("--offline", is_flag=True, help="The local embedder and extractive provider, even if an LLM is configured.")
@click.option("--reset", is_flag=True, help="Empty the database first (all but the migration history).")
@concurrency_option
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@pass_app
def eval_command(app: App, inputs: tuple[str, ...], questions_file: str | None, modes: tuple[str, ...],
                 question_budgets: tuple[int, ...], kind: str | None,
                 alpha: float | None, beta: float | None, budgets: tuple, per_concept: tuple[int, ...],
                 top_k: tuple[int, ...], min_score: tuple[float, ...], sweep_alpha: tuple[float, ...],
                 sweep_beta: tuple[float, ...], sweep_max_tokens: tuple, sweep_tokens_per_concept: tuple,
                 searches: tuple[str, ...], question: str | None, out: str, offline: bool,
                 reset: bool, concurrency: int, as_json: bool) -> None:
    """Compare Tripartite prompts with vector RAG on DOCUMENTS..., ONTOLOGY and OBJECTS:
    per object, prompt tokens and how many of its concepts each prompt covers. With --questions
    FILE instead: every prompt builder (tripartite, rag, hybrid, local, global) on free-text
    questions, answer recall against tokens, on the graph as it is."""
    if questions_file is not None:
        if inputs:
            raise click.UsageError("--questions measures the graph as it is loaded: give no DOCUMENTS, ONTOLOGY "
                                   "or OBJECTS with it (load them first with ingest, ontology load, analyze)")
        _question_eval(app, Path(questions_file), list(modes), list(question_budgets), Path(out), offline,
                       concurrency, as_json)
        return
    if len(inputs) < 3:
        raise click.UsageError("give DOCUMENTS... ONTOLOGY OBJECTS (or --questions FILE)")
    documents, ontology, objects = inputs[:-2], inputs[-2], inputs[-1]
    from tripartite.evaluation.measure import RagSetting, Variant
    from tripartite.evaluation.report import summary_table, verdict_lines
    from tripartite.evaluation.run import EvalOptions, evaluate
    from tripartite.pipeline import Inputs

    app.quiet = as_json
    defaults = app.settings.selection
    variants = ((Variant(), Variant(tokens_per_concept=None), Variant("paper", tokens_per_concept=None))
                + tuple(Variant(max_tokens=b) for b in budgets if b is not None)
                + tuple(Variant(max_per_concept=n, tokens_per_concept=None) for n in per_concept))
    rag = tuple(RagSetting(top_k=k) for k in top_k) + tuple(RagSetting(min_score=s) for s in min_score)
    options = EvalOptions(defaults.alpha if alpha is None else alpha, defaults.beta if beta is None else beta,
                          variants, rag, sweep_alpha, sweep_beta, budgets_of(sweep_max_tokens, sweep_tokens_per_concept),
                          question or defaults.question or None, Path(out), offline=offline, reset=reset,
                          concurrency=concurrency, searches=searches)
    ensure_server(app)
    result = evaluate(app.settings, app.graph, Inputs(documents, ontology, (objects,), kind), options, say)
    if as_json:  # (an analysis with failed tasks raised before: no figure is reported over one)
        emit_json({"files": {k: str(v) for k, v in result.files.items()},
                   "summary": [vars(s) for s in result.summaries],
                   "targets": {v.method: v.met for v in result.verdicts}, "notes": result.notes})
        return
    click.echo("")
    for note in result.notes:
        click.echo(f"note: {note}", err=True)
    for line in summary_table(result.summaries) + [""] + verdict_lines(result.verdicts):
        click.echo(line)
    click.echo("\nwritten: " + ", ".join(str(p) for p in result.files.values()))


def _question_eval(app: App, path: Path, modes: list[str], budgets: list[int], out: Path, offline: bool,
                   concurrency: int, as_json: bool) -> None:
    from tripartite.evaluation.questions import evaluate_questions, table

    app.quiet = as_json
    ensure_server(app)
    from tripartite.infra.migrations import require_current

    require_current(app.graph, app.settings.migrations_dir)  # eval on questions builds nothing: the graph must be current
    result, files = evaluate_questions(app.settings, app.graph, path, modes, budgets, out, offline, concurrency, say)
    if as_json:
        emit_json({"files": {k: str(v) for k, v in files.items()}, "summary": [vars(s) for s in result.summaries],
                   "notes": result.notes})
        return
    for note in result.notes:
        click.echo(f"note: {note}", err=True)
    for line in table(result.summaries):
        click.echo(line)
    click.echo("\nwritten: " + ", ".join(str(p) for p in files.values()))


def budgets_of(absolute: tuple, per_concept: tuple) -> tuple[Budget, ...]:
    """The budgets of a sweep: each absolute one (None: no budget) and each per-concept one."""
    from tripartite.evaluation.tune import Budget

    return (tuple(Budget(max_tokens=b) for b in absolute)
            + tuple(Budget(tokens_per_concept=n) for n in per_concept if n is not None)) or (Budget(),)


@click.command("demo")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@pass_app
def demo_command(app: App, as_json: bool) -> None:
    """The main job end to end on the built-in sample, offline: server, migrations, ingest,
    ontology, objects, analysis, selection, then one prompt and a comparison with vector RAG."""
    from tripartite.evaluation.demo import DEMO_OBJECT, run_demo
    from tripartite.evaluation.measure import Measurement
    from tripartite.evaluation.report import per_object_table

    app.quiet = as_json
    ensure_server(app)
    result = run_demo(app.settings, app.graph, say)
    if as_json:
        emit_json({**result, "partial": bool(result["errors"])})
    if result["errors"]:  # no figures over an incomplete analysis
        click.echo(f"error: {len(result['errors'])} LLM tasks failed (first: {result['errors'][0]}), so the demo "
                   "shows no prompt or table; run it again to retry them", err=True)
        sys.exit(1)
    if as_json:
        return
    click.echo(f"\n==== The Tripartite prompt for {DEMO_OBJECT} ({result['prompt']['tokens']} tokens) ====\n")
    click.echo(result["prompt"]["prompt"])
    click.echo("==== Tripartite prompts against vector RAG, local and global search on the sample objects ====\n")
    if result["note"]:
        click.echo(f"(no global search: {result['note']})\n")
    for line in per_object_table([Measurement(**row) for row in result["table"]]):
        click.echo(line)
    click.echo("\nCovered: the concept's name or a synonym appears in the text the prompt cites; the object's concepts "
               "are those named in its own text.")
    for line in where_it_lives(app.settings):
        click.echo(line)


def where_it_lives(settings) -> list[str]:
    """The demo's last lines: what it leaves running, where the data is, how to stop and remove it."""
    from tripartite.evaluation.demo import DEMO_OBJECT

    see_why = f"`tripartite ui` explains each prompt in a web page (http://127.0.0.1:8770/objects/{DEMO_OBJECT})."
    if settings.uri_from_user:
        return [f"\nThe demo's graph is in the database {settings.neo4j_database} at {settings.neo4j_uri_shown} "
                "(NEO4J_URI); explore it in Neo4j Browser.", see_why]
    from tripartite.infra.server.local import LocalServer

    status = LocalServer(settings.server, settings.cache_dir).status()
    if not status.running:  # the graph went to a Neo4j already listening on the port (see ensure_server)
        return [f"\nThe demo's graph is in the database {settings.neo4j_database} at {settings.neo4j_uri_shown}, "
                "the Neo4j that was already listening there; explore it in Neo4j Browser.", see_why]
    return [f"\nThe local Neo4j is still running (pid {status.pid}), with the demo's graph in {status.home}/data:",
            f"  explore it:  {status.browser_url} (Connect, no authentication; see docs/browser.md)",
            "  stop it:     tripartite server stop   (start it again with `tripartite server start`; the data stays)",
            f"  remove it:   tripartite server remove (stops it and deletes {status.home})",
            f"  see why:     tripartite ui            (each prompt explained: http://127.0.0.1:8770/objects/{DEMO_OBJECT})"]


COMMANDS = [eval_command, demo_command]
