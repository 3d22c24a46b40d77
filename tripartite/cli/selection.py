"""Selection and prompts: `select`, `prompt` and `ask`."""
from __future__ import annotations

import click

from tripartite.cli.common import App, output, pass_app, probability
from tripartite.infra.config import SelectionSettings
from tripartite.infra.errors import TripartiteError
from tripartite.infra.llm import open_runner
from tripartite.infra.llm.providers import ProviderError, RetryableError
from tripartite.selection import select, tripartite_prompt


def _select_lines(report: dict) -> list[str]:
    scope = f" of {', '.join(report['objects'])}" if report["objects"] else ""
    return [f"{report['candidates']} candidates{scope} over {report['concepts']} concepts: {report['selected_alpha']} "
            f"selected by alpha > {report['alpha']}, {report['selected_beta']} more by the beta > {report['beta']} "
            "blanket"]


@click.command("select")
@click.option("--alpha", type=float, callback=probability("--alpha"),
              help=f"Select a candidate when its percentile P_c(w) exceeds this (default {SelectionSettings.alpha}, "
                   "or [selection] alpha).")
@click.option("--beta", type=float, callback=probability("--beta"),
              help="Markov blanket: also select a candidate sharing a chunk with a selected one above this "
                   f"(default {SelectionSettings.beta}, or [selection] beta).")
@click.option("--object", "object_ids", multiple=True, help="Only (re)score these objects (incremental).")
@output(_select_lines)
@pass_app
def select_command(app: App, alpha: float | None, beta: float | None, object_ids: tuple[str, ...]) -> dict:
    """Score every (object, concept, chunk) candidate and classify it (cypher/selection/).
    With --object, score those objects alone and update only what their scores change."""
    alpha = app.settings.selection.alpha if alpha is None else alpha
    beta = app.settings.selection.beta if beta is None else beta
    report = select(app.graph, alpha, beta, list(object_ids) or None)
    return {"alpha": alpha, "beta": beta, **vars(report), "objects": list(object_ids)}


def question_option(command):
    return click.option("--question", default=None,
                        help="The question about the object (default: its ontology plugin's).")(command)


def budget_option(command):
    return click.option("--max-per-concept", type=click.IntRange(min=1), default=None,
                        help="A budget beyond the paper: each concept keeps only its N best extracts by w.")(command)


def _prompt_text(result: dict) -> list[str]:
    click.echo(result["prompt"], nl=False)
    click.echo(f"\n({result['tokens']} tokens, cl100k_base)", err=True)
    return []


@click.command("prompt")
@click.argument("object_id")
@question_option
@budget_option
@output(_prompt_text, formats=True)
@pass_app
def prompt_command(app: App, object_id: str, question: str | None, max_per_concept: int | None) -> dict:
    """The prompt for one object: its concepts, each with the selected evidence and references."""
    defaults = app.settings.selection
    return tripartite_prompt(app.graph, object_id, question or defaults.question or None,
                             max_per_concept or defaults.max_per_concept)


@click.command("ask")
@click.argument("object_id")
@question_option
@budget_option
@pass_app
def ask_command(app: App, object_id: str, question: str | None, max_per_concept: int | None) -> None:
    """Send the object's Tripartite prompt to the configured LLM; print the answer and references."""
    settings = app.settings
    if not settings.llm.configured:
        raise TripartiteError("ask needs an LLM: set TRIPARTITE_LLM_MODEL (plus OPENAI_API_KEY, or "
                              "OPENAI_BASE_URL for a local OpenAI-compatible server)")
    built = tripartite_prompt(app.graph, object_id, question or settings.selection.question or None,
                              max_per_concept or settings.selection.max_per_concept)
    with open_runner(settings) as runner:
        runner.provider.check_reachable()
        try:
            answer = runner.complete_text(built["prompt"])
        except (ProviderError, RetryableError) as exc:
            raise TripartiteError(f"the LLM call failed: {exc}") from None
    click.echo(answer.strip())
    references = [e for concept in built["concepts"] for e in concept["evidence"]]
    if references:
        click.echo("\nReferences:")
        for n, ref in enumerate(references, start=1):
            click.echo(f"[{n}] {ref['document']} > {' > '.join(ref['section_path'])} (chunk {ref['chunk_id']})")


COMMANDS = [select_command, prompt_command, ask_command]
