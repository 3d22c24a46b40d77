"""The main job end to end: `eval` on the user's inputs, `demo` on the built-in sample."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from tripartite.cli.common import App, emit_json, number_list, pass_app, probability, say
from tripartite.cli.server import ensure_server
from tripartite.evaluation.measure import Measurement, RagSetting
from tripartite.evaluation.report import per_object_table, summary_table, verdict_lines
from tripartite.evaluation.run import EvalOptions, evaluate
from tripartite.infra.config import SelectionSettings
from tripartite.evaluation.demo import DEMO_OBJECT, run_demo
from tripartite.pipeline import Inputs


@click.command("eval")
@click.argument("documents", nargs=-1, required=True)
@click.argument("ontology")
@click.argument("objects")
@click.option("--kind", help="The objects' kind (default: the plugin's, else 'object').")
@click.option("--alpha", type=float, default=None, callback=probability("--alpha"),
              help=f"Alpha of the selection (default {SelectionSettings.alpha}, or [selection] alpha).")
@click.option("--beta", type=float, default=None, callback=probability("--beta"),
              help=f"Beta of the selection (default {SelectionSettings.beta}, or [selection] beta).")
@click.option("--top-k", default="1,3,5,10,20", show_default=True, callback=number_list(int, "--top-k", low=1),
              help="RAG settings: the k best chunks.")
@click.option("--min-score", default="0.68,0.66,0.64,0.62", show_default=True,
              callback=number_list(float, "--min-score", low=0, high=1),
              help="RAG settings: every chunk with score (1 + cos) / 2 at least this.")
@click.option("--max-per-concept", "budgets", default="1,2", show_default=True,
              callback=number_list(int, "--max-per-concept", allow_none=True, low=1),
              help="Also measure Tripartite prompts with a budget of N best extracts per concept ('none' for no such rows).")
@click.option("--sweep-alpha", default="0.5,0.7,0.8,0.9,0.95,0.98", show_default=True,
              callback=number_list(float, "--sweep-alpha", low=0, high=1))
@click.option("--sweep-beta", default="0,0.3,0.5,0.7,0.9", show_default=True,
              callback=number_list(float, "--sweep-beta", low=0, high=1))
@click.option("--question", default=None, help="The question in every prompt (default: the plugin's).")
@click.option("--out", default="eval-results", show_default=True, type=click.Path(file_okay=False),
              help="Folder for eval.md, eval.json and eval.png.")
@click.option("--offline", is_flag=True, help="The local embedder and extractive provider, even if an LLM is configured.")
@click.option("--reset", is_flag=True, help="Empty the database first (all but the migration history).")
@click.option("--concurrency", type=int, default=4, show_default=True, help="LLM calls in flight at once.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@pass_app
def eval_command(app: App, documents: tuple[str, ...], ontology: str, objects: str, kind: str | None,
                 alpha: float | None, beta: float | None, top_k: tuple[int, ...], min_score: tuple[float, ...],
                 budgets: tuple[int, ...], sweep_alpha: tuple[float, ...], sweep_beta: tuple[float, ...],
                 question: str | None, out: str, offline: bool, reset: bool, concurrency: int, as_json: bool) -> None:
    """Compare Tripartite prompts with vector RAG on DOCUMENTS..., ONTOLOGY and OBJECTS:
    per object, prompt tokens and how many of its concepts each prompt covers."""
    app.quiet = as_json
    defaults = app.settings.selection
    rag = tuple(RagSetting(top_k=k) for k in top_k) + tuple(RagSetting(min_score=s) for s in min_score)
    options = EvalOptions(defaults.alpha if alpha is None else alpha, defaults.beta if beta is None else beta,
                          rag, sweep_alpha, sweep_beta, question or defaults.question or None, Path(out),
                          offline=offline, reset=reset, concurrency=concurrency, budgets=budgets)
    ensure_server(app)
    result = evaluate(app.settings, app.graph, Inputs(documents, ontology, (objects,), kind), options, say)
    if as_json:
        emit_json({"files": {k: str(v) for k, v in result.files.items()},
                   "summary": [vars(s) for s in result.summaries],
                   "targets": {v.method: v.met for v in result.verdicts},
                   "analysis_errors": result.analysis_errors})
    else:
        click.echo("")
        for line in summary_table(result.summaries) + [""] + verdict_lines(result.verdicts):
            click.echo(line)
        click.echo("\nwritten: " + ", ".join(str(p) for p in result.files.values()))
    if result.analysis_errors:
        click.echo(f"error: {len(result.analysis_errors)} analysis tasks failed (first: {result.analysis_errors[0]}); "
                   "they stay pending, run eval again", err=True)
        sys.exit(1)


@click.command("demo")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@pass_app
def demo_command(app: App, as_json: bool) -> None:
    """The main job end to end on the built-in sample, offline: server, migrations, ingest,
    ontology, objects, analysis, selection, then one prompt and a comparison with vector RAG."""
    app.quiet = as_json
    ensure_server(app)
    result = run_demo(app.settings, app.graph, say)
    if as_json:
        emit_json(result)
        return
    click.echo(f"\n==== The Tripartite prompt for {DEMO_OBJECT} ({result['prompt']['tokens']} tokens) ====\n")
    click.echo(result["prompt"]["prompt"])
    click.echo("==== Tripartite prompts against vector RAG on the sample objects ====\n")
    for line in per_object_table([Measurement(**row) for row in result["table"]]):
        click.echo(line)
    click.echo("\nA concept of the object is covered when a chunk the prompt cites carries an extract of it.")
    click.echo(f"Explore the graph: http://127.0.0.1:{app.settings.server.http_port}/browser/ (see the README)")


COMMANDS = [eval_command, demo_command]
