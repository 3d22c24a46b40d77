"""Selection and prompts: `select`, `prompt` and `ask`. Imports of the pipeline stay inside
the commands, so --help stays fast."""
from __future__ import annotations

import click

from tripartite.cli.common import FINITE, App, output, pass_app, probability, question_option, say
from tripartite.cli.defaults import MODES, RAG_TOP_K, SELECTIONS
from tripartite.infra.config import SelectionSettings


def _select_lines(report: dict) -> list[str]:
    if report["objects"] and report["full"]:
        say("note: inputs other than these objects changed since the last full select (or it did not finish), "
            "so every object was selected again")
    scope = f" of {', '.join(report['objects'])}" if report["objects"] and not report["full"] else ""
    lines = [f"{report['candidates']} candidates{scope} over {report['concepts']} concepts: {report['selected_alpha']} "
             f"selected by alpha > {report['alpha']}, {report['selected_beta']} more by the beta > {report['beta']} "
             f"blanket; the floor (each concept's best) adds {report['floor']} for the default selection"
             + (f"; ran on {report['engine_reason']}" if report["engine"] != "plugin" else "")]
    moved = report.get("thresholds_moved")
    if moved and not report["full"]:
        lines.append(f"note: alpha and beta differ from the last select's ({moved['alpha']:g}, {moved['beta']:g}), so "
                     f"every object is classified by alpha > {report['alpha']:g} and beta > {report['beta']:g} now; "
                     "the counts above are of the objects named")
    if report.get("why_none"):
        lines.append(f"note: {report['why_none']}")
    elif report.get("unanalysed"):
        lines.append(f"note: {report['unanalysed']}")
    return lines


def unanalysed_note(graph) -> str:
    """The chunks and objects a selection could not use, not analysed for every loaded concept
    (their extracts are missing: each prompt lacks them in silence otherwise); "" when none."""
    found = graph.one("analysis/unanalysed")
    if not found:
        return ""
    parts = [f"{found[n]:,} of {found[total]:,} {what}" for n, total, what in
             (("unanalysed", "chunks", "chunks"), ("unanalysed_objects", "objects", "objects")) if found[n]]
    if not parts:
        return ""
    return (f"{' and '.join(parts)} are not analysed for every loaded concept (added or changed since the last "
            "analysis, or a concept loaded or reworded), so this selection leaves their extracts out: run "
            "`tripartite analyze`, then `tripartite select`")


def why_no_candidates(counts: dict) -> str:
    """What a select that found no candidate lacks, first missing part first."""
    then = "then `tripartite analyze` and `tripartite select`"
    for part, fix in (("concepts", f"no ontology is loaded: `tripartite ontology load PLUGIN`, {then}"),
                      ("chunks", f"no documents are ingested: `tripartite ingest PATH`, {then}"),
                      ("objects", f"no objects are stored: `tripartite objects add PATH --kind KIND`, {then}"),
                      ("concerns", "no object was analysed: `tripartite analyze`, then `tripartite select`"),
                      ("mentioned_in", "no chunk was analysed: `tripartite analyze`, then `tripartite select`")):
        if not counts[part]:
            return fix
    return "the objects and the chunks concern different concepts, so no (object, concept, chunk) candidate exists"


@click.command("select")
@click.option("--alpha", type=FINITE, callback=probability("--alpha"),
              help=f"Select a candidate when its percentile P_c(w) exceeds this (default {SelectionSettings.alpha}, "
                   "or [selection] alpha).")
@click.option("--beta", type=FINITE, callback=probability("--beta"),
              help="Markov blanket: also select a candidate sharing a chunk with a selected one above this "
                   f"(default {SelectionSettings.beta}, or [selection] beta).")
@click.option("--object", "object_ids", multiple=True, help="Only (re)score these objects (incremental).")
@click.option("--concurrency", type=click.IntRange(min=1), default=None,
              help="Transactions each step of the Cypher scripts runs at once on the server (default: the "
                   "server's processors, or [selection] concurrency / TRIPARTITE_SELECT_CONCURRENCY); the "
                   "procedure plugin always uses the server's processors.")
@output(_select_lines)
@pass_app
def select_command(app: App, alpha: float | None, beta: float | None, object_ids: tuple[str, ...],
                   concurrency: int | None) -> dict:
    """Score every (object, concept, chunk) candidate and classify it (cypher/selection/).
    With --object, score those objects alone and update only what their scores change."""
    from tripartite.selection import select
    from tripartite.selection.settings import effective

    chosen = effective(app.graph, app.settings.selection, alpha=alpha, beta=beta)
    from tripartite.selection.engine import choose

    last = app.graph.one("selection/freshness", object_id=None) if object_ids else None
    engine = choose(app.graph, app.settings.selection.engine)
    report = select(app.graph, chosen.alpha, chosen.beta, list(object_ids) or None,
                    concurrency=concurrency or app.settings.selection.concurrency, on_wait=say, engine=engine)
    result = {"alpha": chosen.alpha, "beta": chosen.beta, **vars(report), "engine_reason": engine.reason,
              "objects": list(object_ids)}
    if last and last["alpha"] is not None and (last["alpha"], last["beta"]) != (chosen.alpha, chosen.beta):
        # The thresholds are every object's: the others were classified again too.
        result["thresholds_moved"] = {"alpha": last["alpha"], "beta": last["beta"]}
    if not report.candidates and not object_ids:
        result["why_none"] = why_no_candidates(app.graph.one("evaluation/graph_counts"))
    else:
        result["unanalysed"] = unanalysed_note(app.graph)
    if object_ids:
        unanalysed = [row["id"] for row in app.graph.run("objects/object_state", object_ids=list(object_ids))
                      if not row["analysed"] and row["concepts_loaded"]]
        if unanalysed:
            result["why_none"] = (f"{', '.join(unanalysed)} not analysed yet, so without candidates: run "
                                  f"`tripartite analyze`, then this select again")
    return result


def prompt_options(command):
    """How the prompt's evidence is chosen: the selection, a token budget, a per-concept cap."""
    for option in reversed([
        click.option("--selection", "mode", type=click.Choice(SELECTIONS), default=None,
                     help="floor (default): every concept keeps at least its best extract, plus the paper's alpha "
                          "and blanket choices; paper: exactly the paper's selection."),
        click.option("--max-tokens", type=click.IntRange(min=1), default=None,
                     help="A budget for the whole prompt: the weakest extracts go first, and no concept loses its "
                          "last one while another still has two."),
        click.option("--tokens-per-concept", type=click.IntRange(min=0), default=None,
                     help=f"Without --max-tokens, the budget is this many tokens per concept of the object (default "
                          f"{SelectionSettings.tokens_per_concept}; 0: no budget); it trims extras only, every "
                          "concept keeps its best extract."),
        click.option("--max-per-concept", type=click.IntRange(min=1), default=None,
                     help="Each concept keeps only its N best extracts by w."),
        question_option,
    ]):
        command = option(command)
    return command


def codes_option(command):
    return click.option("--codes", default=None, metavar="PREFIXES",
                        help="Name each concept's codes beside it: 'all', or a comma-separated list of prefixes such "
                             "as ICD10CM,SNOMEDCT,MESH ('notation' for the vocabulary's own notation). The "
                             "Tripartite prompt only.")(command)


def object_result(app: App, object_id: str, mode: str, flags: dict, runner=None):
    """The object's prompt built the `mode` way (search/modes.py: the one road to every
    builder), under the flags given and the settings that apply (the Tripartite prompt's
    selection options; local and global search's LLM steps answered by `runner`)."""
    from tripartite.infra.embeddings import make_embedder
    from tripartite.search.modes import object_prompt
    from tripartite.selection.settings import effective

    flags = dict(flags)
    codes = [c for c in (flags.pop("codes", None) or "").split(",") if c.strip()] or None
    chosen = effective(app.graph, app.settings.selection, **flags)
    if mode == "tripartite":
        return object_prompt(app.graph, object_id, mode, None, None, chosen.question or None, chosen.max_tokens,
                             {"selection": chosen.mode, "max_per_concept": chosen.max_per_concept,
                              "tokens_per_concept": chosen.tokens_per_concept or None, "codes": codes})
    return object_prompt(app.graph, object_id, mode, make_embedder(app.settings), runner, chosen.question or None,
                         flags.get("max_tokens"), search=app.settings.search)


def _prompt_text(result: dict) -> list[str]:
    click.echo(result["prompt"], nl=False)
    if result.get("mode") == "rag" and result.get("references"):
        # vector RAG's prompt is the baseline as published, numbers only: the trails go beside it
        from tripartite.lexical.trails import references_block

        trails = "\n".join(references_block(result["references"]))
        click.echo(f"\nReferences (not in the prompt):\n{trails}", err=True)
    click.echo(f"\n({result['tokens']} tokens, cl100k_base)", err=True)
    if result.get("note"):
        click.echo(f"note: {result['note']}", err=True)
    return []


def mode_option(command):
    return click.option("--mode", "prompt_mode", type=click.Choice(MODES), default="tripartite", show_default=True,
                        help="How the prompt is built: tripartite (the selection), rag (the chunks closest to the "
                             f"object's text, top {RAG_TOP_K}), local or global search over the triplet graph (the "
                             "object's text as what is searched for). The --selection options apply to "
                             "tripartite.")(command)


@click.command("prompt")
@click.argument("object_id")
@mode_option
@prompt_options
@codes_option
@output(_prompt_text, formats=True)
@pass_app
def prompt_command(app: App, object_id: str, prompt_mode: str, **flags) -> dict:
    """The prompt for one object: its concepts, each with the selected evidence and references
    (or, with --mode, the prompt vector RAG, local or global search builds for it)."""
    from tripartite.infra.llm import open_runner
    from tripartite.search.modes import offline_provider

    if prompt_mode == "tripartite":
        return object_result(app, object_id, prompt_mode, flags).details()
    with open_runner(app.settings, offline_provider(prompt_mode, None)) as runner:
        if prompt_mode != "rag" and app.settings.llm.configured:  # local's keywords, global's map step
            runner.provider.check_reachable()
        return object_result(app, object_id, prompt_mode, flags, runner).details()


COMMANDS = [select_command, prompt_command]
