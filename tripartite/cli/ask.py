"""`tripartite ask`: a prompt (an object's, or a free-text question's, built any of the five
ways) sent to the configured LLM, and the answer printed with the prompt's references."""
from __future__ import annotations

import click

from tripartite.cli.common import App, pass_app
from tripartite.cli.defaults import QUESTION_MODES
from tripartite.cli.selection import object_result, prompt_options
from tripartite.infra.errors import TripartiteError


def ask_mode_option(command):
    return click.option("--mode", "prompt_mode", type=click.Choice(QUESTION_MODES), default="tripartite",
                        show_default=True,
                        help="How the prompt is built: tripartite (the selection), rag (the closest chunks), hybrid "
                             "(questions only), local or global search over the triplet graph. The --selection "
                             "options apply to tripartite.")(command)


def looks_like_a_question(text: str) -> bool:
    """Words with spaces, a question mark, or Chinese or Japanese text: not an object id."""
    from tripartite.kg.phrases import CJK

    return any(ch.isspace() for ch in text.strip()) or text.rstrip().endswith(("?", "？")) or bool(CJK.search(text))


@click.command("ask")
@click.argument("target", metavar="OBJECT_ID_OR_QUESTION")
@ask_mode_option
@prompt_options
@pass_app
def ask_command(app: App, target: str, prompt_mode: str, **flags) -> None:
    """Send a prompt to the configured LLM and print the answer and the prompt's references: the
    prompt for a stored object (OBJECT_ID), or for a free-text QUESTION (any text that is not an
    object's id), built the --mode way."""
    from tripartite.infra.llm import open_runner
    from tripartite.infra.llm.providers import ProviderError, RetryableError
    from tripartite.objects.store import object_text
    from tripartite.selection.settings import effective

    settings = app.settings
    if not settings.llm.configured:
        raise TripartiteError("ask needs an LLM: set TRIPARTITE_LLM_MODEL (plus OPENAI_API_KEY, or "
                              "OPENAI_BASE_URL for a local OpenAI-compatible server)")
    if object_text(app.graph, target) is None:
        if not looks_like_a_question(target):
            raise TripartiteError(f"no object with id {target!r} (see `tripartite objects list`); to ask a question, "
                                  "write it out in words")
        for option in ("question", "max_per_concept", "tokens_per_concept"):
            if flags.get(option) is not None:  # they shape an object's prompt; ignoring them would mislead
                raise click.UsageError(f"--{option.replace('_', '-')} is for an object's prompt; a question's takes "
                                       "--max-tokens (and --selection with --mode tripartite)")
        _ask_question(app, target, prompt_mode, flags)
        return
    if prompt_mode == "hybrid":
        raise TripartiteError("hybrid builds prompts for free-text questions only; ask a question, or use --mode "
                              "tripartite, rag, local or global for an object")
    with open_runner(settings) as runner:
        runner.provider.check_reachable()
        try:
            if prompt_mode == "tripartite":  # the neo4j-graphrag road: GraphRAG over TripartiteRetriever
                from tripartite.search.retriever import TripartiteRetriever, answer  # neo4j-graphrag: 0.6 s to import

                chosen = effective(app.graph, settings.selection, **flags)
                retriever = TripartiteRetriever(app.graph.driver, app.graph.database, chosen.question or None,
                                                chosen.max_tokens, chosen.mode, chosen.max_per_concept,
                                                chosen.tokens_per_concept or None)
                result = answer(retriever, runner, target)
            else:
                result = object_result(app, target, prompt_mode, flags, runner)
                result.answer = runner.complete_text(result.prompt, stage="answer")
        except (ProviderError, RetryableError) as exc:
            raise TripartiteError(f"the LLM call failed: {exc}") from None
    _print_answer(result.answer, result.details()["references"])


def _ask_question(app: App, question: str, mode: str, flags: dict) -> None:
    """A free-text question's prompt built the `mode` way, sent to the LLM (search's road)."""
    from tripartite.cli.search import question_search  # search's imports are heavy: only here

    result = question_search(app, mode, question, flags.get("max_tokens"), False, True, False, None,
                             flags.get("mode") if mode == "tripartite" else None)
    _print_answer(result["answer"], result["references"])


def _print_answer(text: str, references: list[dict]) -> None:
    from tripartite.lexical.trails import references_block

    click.echo(text.strip())
    if references:
        click.echo("\nReferences:")
        for line in references_block(references):
            click.echo(line)


COMMANDS = [ask_command]
