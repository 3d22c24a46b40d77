"""Prompts built by search: `search local|global QUESTION` over the triplet graph (DB-GPT's
GraphRAG) and the vector-RAG baseline `rag-prompt`. Imports of the pipeline stay inside the
commands, so --help stays fast."""
from __future__ import annotations

import click

from tripartite.cli import defaults
from tripartite.cli.common import FINITE, App, concurrency_option, output, pass_app, probability, question_option, say
from tripartite.infra.config import SearchSettings
from tripartite.infra.errors import TripartiteError

NEEDS_LLM = ("--answer needs an LLM: set TRIPARTITE_LLM_MODEL (plus OPENAI_API_KEY, or OPENAI_BASE_URL for a local "
             "OpenAI-compatible server)")


def _rag_text(result: dict) -> list[str]:
    click.echo(result["prompt"], nl=False)
    click.echo(f"\n({result['tokens']} tokens, cl100k_base; {len(result['chunks'])} chunks)", err=True)
    return []


@click.command("rag-prompt")
@click.argument("object_id")
@click.option("--top-k", type=click.IntRange(min=1), help="Take the k chunks most similar to the object's text.")
@click.option("--min-score", type=FINITE, callback=probability("--min-score"),
              help="Take every chunk whose index score, (1 + cos) / 2, is at least this.")
@question_option
@output(_rag_text, formats=True)
@pass_app
def rag_prompt_command(app: App, object_id: str, top_k: int | None, min_score: float | None,
                       question: str | None) -> dict:
    """The vector-RAG baseline prompt for an object (neo4j-graphrag's VectorRetriever)."""
    from tripartite.infra.embeddings import make_embedder
    from tripartite.search.vector import object_rag_prompt

    if (top_k is None) == (min_score is None):
        raise click.UsageError("give exactly one of --top-k K or --min-score S")
    return object_rag_prompt(app.graph, make_embedder(app.settings), object_id, top_k, min_score,
                             question or app.settings.selection.question or None)


def _search_text(result: dict) -> list[str]:
    """The prompt (or answer) on stdout; what it cost, and what stands behind it, on stderr after it."""
    notes = [f"note: {result['note']}"] if result.get("note") else []
    if result.get("communities") and not result.get("dry_run"):
        notes.append("communities behind it: " + "; ".join(f"{c['title']} ({c['id']}, level {c['level']})"
                                                         for c in result["communities"]))
    spent = f"{result['total_tokens']:,} prompt tokens in all"
    if result.get("dry_run"):
        bound = "at most " if result.get("estimate") else ""
        calls = f"{result['map_calls']} map calls, " if "map_calls" in result else ""
        return [f"{result['mode']} search would spend {bound}{result['total_tokens']:,} prompt tokens "
                f"({calls}the final prompt {bound}{result['tokens']:,}); nothing was sent"]
    if "answer" in result:
        from tripartite.lexical.trails import references_block

        lines = [result["answer"].strip()]
        if result["references"]:
            lines += ["", "References:", *references_block(result["references"])]
        for line in lines:
            click.echo(line)
        notes.append(f"({result['tokens']:,} tokens in the final prompt, {spent}, cl100k_base)")
    else:
        click.echo(result["prompt"], nl=False)
        notes.append(f"\n({result['tokens']:,} tokens in the prompt, {spent}, cl100k_base; "
                     f"{len(result['references'])} references)")
    for note in notes:
        say(note)
    return []


BUDGET_HELP = (f"The final prompt's budget (default: {SearchSettings.local_tokens:,} for local, "
               f"{SearchSettings.global_tokens:,} for global, or [search] local_tokens, global_tokens).")


def search_options(command, budget_help: str = BUDGET_HELP):
    for option in reversed([
        click.argument("question"),
        click.option("--max-tokens", type=click.IntRange(min=100), default=None, help=budget_help),
        click.option("--dry-run", is_flag=True,
                     help="Print the prompt tokens the query would spend; send nothing to the LLM."),
        click.option("--answer", is_flag=True,
                     help="Send the prompt to the configured LLM; print its answer and the numbered references."),
        click.option("--offline", is_flag=True,
                     help="Offline keywords (local) and map step (global), even if an LLM is configured."),
        concurrency_option,
    ]):
        command = option(command)
    return command


def _search(app: App, run, question: str, dry_run: bool, answer: bool, offline: bool, concurrency: int,
            offline_provider, calls_llm: bool = True) -> dict:
    """Run a search with the runner it needs, and send its prompt on with --answer. A mode that
    asks the LLM before the answer (`calls_llm`) finds out first whether the endpoint answers.
    What the command prints is the result's own form (PromptResult.details)."""
    from tripartite.infra.llm import open_runner
    from tripartite.infra.llm.providers import ProviderError, RetryableError
    from tripartite.search.modes import check_question

    settings = app.settings
    if answer and (offline or not settings.llm.configured):
        raise TripartiteError(NEEDS_LLM)
    if answer and dry_run:
        raise click.UsageError("--dry-run sends nothing, so it cannot --answer; give one of them")
    name = click.get_current_context().info_name  # the command asked, with an example about the sample
    check_question(question, ("tripartite ask" if name == "ask" else f"tripartite search {name}")
                   + ' "How is heart failure treated?"')
    with open_runner(settings, offline_provider, offline=offline, concurrency=concurrency) as runner:
        if settings.llm.configured and not offline and ((calls_llm and not dry_run) or answer):
            runner.provider.check_reachable()
        try:
            result = run(runner)
        except (ProviderError, RetryableError) as exc:  # reachable, yet a call failed (a model it lacks, a 500)
            raise TripartiteError(f"the LLM call failed: {exc}; `tripartite doctor` checks the endpoint and model, "
                                  "--offline searches without it") from None
        if answer:
            try:
                result.answer = runner.complete_text(result.prompt, stage="answer")
            except (ProviderError, RetryableError) as exc:
                raise TripartiteError(f"the LLM call failed: {exc}") from None
    shown = result.details()
    if dry_run:
        shown["dry_run"] = True
    return shown


@click.group("search")
def search_group() -> None:
    """The prompt for a free-text question, built one of five ways: tripartite (the question
    read like an object and selected against the stored distributions), rag (the closest
    chunks), hybrid (sentences of the lexical and triplet graphs and community summaries on one
    scale), local and global search over the triplet graph (DB-GPT's GraphRAG)."""


def question_search(app: App, mode: str, question: str, max_tokens: int | None, dry_run: bool, answer: bool,
                    offline: bool, concurrency: int | None, selection: str | None = None, **options) -> dict:
    """QUESTION's prompt built the `mode` way (search/modes.py: the one road to every builder),
    with the runner and offline provider the mode asks for; `options` are local's depth and
    global's level and map_tokens."""
    from tripartite.infra.embeddings import local_embedder, make_embedder
    from tripartite.search.modes import offline_provider, question_analyzer, question_prompt

    if dry_run and mode not in ("tripartite", "local", "global"):
        raise click.UsageError(f"--dry-run is for modes that call an LLM before the answer (tripartite, local, "
                               f"global); {mode} calls none")
    embedder = make_embedder(app.settings)
    extracts_embedder = local_embedder(app.settings) if mode == "tripartite" else None
    chosen = app.settings.selection

    def run(runner):
        analyzer = question_analyzer(app.graph, extracts_embedder, runner) if mode == "tripartite" else None
        return question_prompt(app.graph, question, mode, embedder, runner, analyzer, max_tokens, chosen.alpha,
                               chosen.beta, selection or chosen.mode, dry_run, **options, search=app.settings.search)
    return _search(app, run, question, dry_run, answer, offline, concurrency,
                   offline_provider(mode, extracts_embedder), calls_llm=mode != "rag")


def _question_command(mode: str, doc: str, budget_help: str):
    def command(app: App, question: str, max_tokens: int | None, dry_run: bool, answer: bool, offline: bool,
                concurrency: int, **extra) -> dict:
        return question_search(app, mode, question, max_tokens, dry_run, answer, offline, concurrency, **extra)

    command.__doc__ = doc
    command.__name__ = f"search_{mode}"
    wrapped = pass_app(command)
    wrapped = output(_search_text, formats=True)(wrapped)
    if mode == "tripartite":
        wrapped = click.option("--selection", type=click.Choice(defaults.SELECTIONS), default=None,
                               help="floor (default): each concept keeps at least its best extract; paper: "
                                    "exactly alpha and the blanket.")(wrapped)
    wrapped = search_options(wrapped, budget_help)
    return search_group.command(mode)(wrapped)


_question_command("tripartite", """The Tripartite prompt for QUESTION: the question is read like an object
    (one extract per concept it concerns, cached), every chunk extract of those concepts scored
    against it and selected against the stored distributions (alpha, Markov blanket, floor),
    laid out concept by concept with references; nothing is stored.""",
                  "The prompt's budget: the weakest extracts go first (default: none).")
_question_command("rag", """The vector-RAG prompt for QUESTION: the chunks closest to it (top 5, or as many as
    fit in --max-tokens).""", "Fill the prompt with the closest chunks up to this many tokens (default: the top 5).")
_question_command("hybrid", """The hybrid prompt for QUESTION: sentences of the chunks closest to it, of the
    chunks that say its words (full-text) and of the chunks its entities came from, relations
    between those entities and community summaries,
    ranked on one scale and packed into one budget, each chunk quoted once
    (tripartite/search/hybrid.py).""",
                  f"The prompt's budget (default {SearchSettings.hybrid_tokens:,}, or [search] hybrid_tokens).")


@search_group.command("local")
@search_options
@click.option("--depth", type=click.IntRange(0, 3), default=None,
              help=f"Hops of relations around the entities found (default {SearchSettings.depth}, or [search] depth).")
@output(_search_text, formats=True)
@pass_app
def search_local(app: App, question: str, max_tokens: int | None, dry_run: bool, answer: bool, offline: bool,
                 concurrency: int, depth: int | None) -> dict:
    """The local-search prompt for QUESTION: the entities its keywords name, the relations around
    them, their chunks (Document > Section > Chunk) and their communities (cypher/search/local.cypher)."""
    return question_search(app, "local", question, max_tokens, dry_run, answer, offline, concurrency, depth=depth)


@search_group.command("global")
@search_options
@click.option("--level", type=click.IntRange(min=0), default=None,
              help="The community level to map (default: the one whose reports cover the most entities, "
                   f"among levels with at least {defaults.MIN_COMMUNITIES} reports).")
@click.option("--map-tokens", type=click.IntRange(min=200), default=None,
              help=f"The map step's budget: prompt tokens of all map calls together (default "
                   f"{SearchSettings.map_tokens:,}, or [search] map_tokens).")
@output(_search_text, formats=True)
@pass_app
def search_global(app: App, question: str, max_tokens: int | None, dry_run: bool, answer: bool, offline: bool,
                  concurrency: int, level: int | None, map_tokens: int | None) -> dict:
    """The global-search prompt for QUESTION: the community reports most similar to it mapped to
    scored points (one LLM call per batch; offline, their closest sentences), the best points
    within the budget, with the communities and chunks behind them."""
    return question_search(app, "global", question, max_tokens, dry_run, answer, offline, concurrency, level=level,
                           map_tokens=map_tokens)


COMMANDS = [rag_prompt_command, search_group]
