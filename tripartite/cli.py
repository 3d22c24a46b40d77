"""The `tripartite` command line. Every command takes --json for scripts."""
from __future__ import annotations

import json
import logging
import sys
import time
from dataclasses import replace
from typing import Callable

import click

from tripartite import __version__, migrations
from tripartite.config import Settings, load_settings
from tripartite.db import connect
from tripartite.errors import ServerError, TripartiteError


class Context:
    def __init__(self, config_path: str | None):
        self.config_path = config_path
        self._settings: Settings | None = None

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            self._settings = load_settings(self.config_path)
        return self._settings


pass_context = click.make_pass_decorator(Context)


def emit_json(data) -> None:
    click.echo(json.dumps(data, indent=2, default=str))


def print_rows(rows: list[dict], as_json: bool, empty: str, line) -> None:
    """A listing: JSON for scripts, else one formatted line per row, or a hint when empty."""
    if as_json:
        emit_json(rows)
        return
    if not rows:
        click.echo(empty)
    for row in rows:
        click.echo(line(row))


def say(message: str) -> None:
    click.echo(message, err=True)


class TripartiteGroup(click.Group):
    """Turns a TripartiteError anywhere below into one line on stderr and exit code 1."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except TripartiteError as exc:
            click.echo(f"error: {exc}", err=True)
            if isinstance(exc, ServerError) and exc.log_tail:
                click.echo("---- end of the server log ----", err=True)
                click.echo(exc.log_tail, err=True)
            ctx.exit(1)


@click.group(cls=TripartiteGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="tripartite")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), envvar="TRIPARTITE_CONFIG",
              help="tripartite.toml to use (default: the nearest one upward from here).")
@click.pass_context
def cli(ctx: click.Context, config_path: str | None) -> None:
    """Tripartite-GraphRAG: ontology-anchored GraphRAG in Neo4j."""
    ctx.obj = Context(config_path)


# ---- server -------------------------------------------------------------------------------
@cli.group()
def server() -> None:
    """The local Neo4j 5.26 + APOC + Browser, built from Maven Central jars (no Docker)."""


def _local_server(obj: Context, bolt_port: int | None = None, http_port: int | None = None):
    from tripartite.server.local import LocalServer

    settings = obj.settings
    server_settings = settings.server
    if bolt_port:
        server_settings = replace(server_settings, bolt_port=bolt_port)
    if http_port:
        server_settings = replace(server_settings, http_port=http_port)
    return LocalServer(server_settings, settings.cache_dir, say=say)


def _print_status(status, as_json: bool) -> None:
    if as_json:
        emit_json(status.as_dict())
    elif status.running:
        click.echo(f"running (pid {status.pid}), Neo4j {status.neo4j_version}\n"
                   f"  bolt:    {status.bolt_uri}\n  browser: {status.browser_url}\n  home:    {status.home}")
    else:
        click.echo(f"not running (home {status.home})")


@server.command("start")
@click.option("--bolt-port", type=int, help="Bolt port (default 7687, or TRIPARTITE_BOLT_PORT).")
@click.option("--http-port", type=int, help="HTTP/Browser port (default 7474, or TRIPARTITE_HTTP_PORT).")
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
@pass_context
def server_start(obj: Context, bolt_port: int | None, http_port: int | None, as_json: bool) -> None:
    """Resolve the jars (first time only), write the config, start, and wait for Bolt."""
    local = _local_server(obj, bolt_port, http_port)
    was_running = local.status().running
    started = time.monotonic()
    status = local.start()
    if not as_json:
        if was_running:
            click.echo("already running")
        else:
            click.echo(f"started in {time.monotonic() - started:.1f} s")
    _print_status(status, as_json)


@server.command("stop")
@click.option("--json", "as_json", is_flag=True)
@pass_context
def server_stop(obj: Context, as_json: bool) -> None:
    """Shut the local server down cleanly (SIGTERM, then wait)."""
    stopped = _local_server(obj).stop()
    if as_json:
        emit_json({"stopped": stopped})
    else:
        click.echo("stopped" if stopped else "not running")


@server.command("status")
@click.option("--json", "as_json", is_flag=True)
@pass_context
def server_status(obj: Context, as_json: bool) -> None:
    """Say whether the local server runs, and where. Exit code 3 when it does not."""
    status = _local_server(obj).status()
    _print_status(status, as_json)
    if not status.running:
        sys.exit(3)


@server.command("logs")
@click.option("-n", "--lines", default=50, show_default=True, help="How many lines from the end.")
@click.option("-f", "--follow", is_flag=True, help="Keep printing new lines until Ctrl-C.")
@pass_context
def server_logs(obj: Context, lines: int, follow: bool) -> None:
    """Print the end of the server's log."""
    local = _local_server(obj)
    click.echo(local.log_tail(lines))
    if follow:
        with local.console_log.open("r", encoding="utf-8", errors="replace") as handle:
            handle.seek(0, 2)
            while True:
                line = handle.readline()
                if line:
                    click.echo(line, nl=False)
                else:
                    time.sleep(0.5)


# ---- migrations -----------------------------------------------------------------------------
@cli.command("migrate")
@click.option("--status", "show_status", is_flag=True, help="List applied and pending migrations; apply nothing.")
@click.option("--json", "as_json", is_flag=True)
@pass_context
def migrate_command(obj: Context, show_status: bool, as_json: bool) -> None:
    """Apply cypher/migrations/V<NNN>__<description>.cypher in version order, then changed R__ ones."""
    settings = obj.settings
    with connect(settings) as driver:
        if show_status:
            states = migrations.status(driver, settings.neo4j_database, settings.migrations_dir)
            if as_json:
                emit_json([{**vars(s), "label": s.label} for s in states])
                return
            if not states:
                click.echo(f"no migrations in {settings.migrations_dir}")
            for s in states:
                when = f"  {s.applied_at}" if s.applied_at else ""
                click.echo(f"{s.label:<4}  {s.state:<8} {s.description}{when}")
            return

        def report(migration, seconds: float) -> None:
            if not as_json:
                click.echo(f"applied {migration.name} ({len(migration.statements)} statements, {seconds * 1000:.0f} ms)")

        def skipped(migration, missing: list[str]) -> None:
            if not as_json:
                click.echo(f"skipped {migration.name}: the server lacks {', '.join(missing)} "
                           "(APOC Extended); it is applied once they are installed")

        applied = migrations.migrate(driver, settings.neo4j_database, settings.migrations_dir, on_applied=report,
                                     on_skipped=skipped)
        if as_json:
            emit_json({"applied": [m.name for m in applied]})
        elif not applied:
            click.echo("up to date: nothing to apply")


# ---- lexical graph ---------------------------------------------------------------------------
@cli.command("ingest")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--chunk-tokens", type=int, help="Largest chunk, in the embedding model's tokens (default 200).")
@click.option("--max-mb", type=float, help="Refuse files larger than this (default 64).")
@click.option("--no-embed", is_flag=True, help="Write the graph only; embed later with `tripartite embed`.")
@click.option("--json", "as_json", is_flag=True)
@pass_context
def ingest_command(obj: Context, paths: tuple[str, ...], chunk_tokens: int | None, max_mb: float | None,
                   no_embed: bool, as_json: bool) -> None:
    """Ingest Markdown, text and PDF files (or folders of them) into the lexical graph."""
    from tripartite.embeddings import make_token_counter
    from tripartite.lexical.ingest import ingest_paths
    from tripartite.lexical.readers import discover

    settings = obj.settings
    max_tokens = chunk_tokens or settings.chunking.max_tokens
    counter = make_token_counter(settings)
    if max_tokens < 16 or max_tokens + 2 > counter.window:
        raise click.BadParameter(f"{max_tokens} does not fit the embedding model's {counter.window}-token window; "
                                 f"use 16 to {counter.window - 2}", param_hint="--chunk-tokens")
    max_bytes = int((max_mb or settings.chunking.max_mb) * 1024 * 1024)
    total = len(discover(paths).supported)
    with connect(settings) as driver:
        with click.progressbar(length=total, label="Ingesting", file=sys.stderr,
                               hidden=as_json or total < 2) as bar:
            report = ingest_paths(driver, settings.neo4j_database, list(paths), counter, max_tokens, max_bytes,
                                  on_file=lambda path: bar.update(1))
        embedded = 0 if no_embed else _embed_pending(settings, driver, quiet=as_json)
    if as_json:
        emit_json({**report.as_dict(), "embedded": embedded})
    else:
        for doc in report.ingested:
            verb = "replaced" if doc["replaced"] else "ingested"
            click.echo(f"{verb:<9} {doc['id']}: {doc['sections']} sections, {doc['chunks']} chunks")
        for doc in report.unchanged:
            click.echo(f"unchanged {doc['id']}")
        for item in report.skipped:
            click.echo(f"skipped   {item['path']}: {item['reason']}")
        for path in report.missing:
            click.echo(f"error: {path}: no such file or folder", err=True)
        for item in report.failed:
            click.echo(f"error: {item['error']}", err=True)
        if not no_embed:
            click.echo(f"embedded  {embedded} chunks")
    if report.failed or report.missing:
        sys.exit(1)


def _embed_pending(settings: Settings, driver, quiet: bool) -> int:
    from tripartite.embeddings import make_embedder
    from tripartite.lexical.embed import embed_chunks, pending_count

    embedder = make_embedder(settings)
    pending = pending_count(driver, settings.neo4j_database, embedder.name)
    if not pending:
        return 0
    with click.progressbar(length=pending, label=f"Embedding ({embedder.name})", file=sys.stderr,
                           hidden=quiet) as bar:
        return embed_chunks(driver, settings.neo4j_database, embedder, on_progress=bar.update)


@cli.command("embed")
@click.option("--json", "as_json", is_flag=True)
@pass_context
def embed_command(obj: Context, as_json: bool) -> None:
    """Embed every chunk that has no vector from the configured model yet."""
    with connect(obj.settings) as driver:
        embedded = _embed_pending(obj.settings, driver, quiet=as_json)
    if as_json:
        emit_json({"embedded": embedded})
    else:
        click.echo(f"embedded {embedded} chunks")


@cli.group()
def documents() -> None:
    """The documents in the lexical graph."""


@documents.command("list")
@click.option("--json", "as_json", is_flag=True)
@pass_context
def documents_list(obj: Context, as_json: bool) -> None:
    """Every document with its sections, chunks and embedded chunks."""
    from tripartite.lexical.store import list_documents

    with connect(obj.settings) as driver:
        rows = list_documents(driver, obj.settings.neo4j_database)
    print_rows(rows, as_json, "no documents; add some with `tripartite ingest PATH`",
               lambda row: f"{row['id']:<32} {row['format']:<8} {row['sections']:>4} sections {row['chunks']:>6} chunks "
                           f"{row['embedded']:>6} embedded  {row['path']}")


@documents.command("remove")
@click.argument("document_id")
@click.option("--json", "as_json", is_flag=True)
@pass_context
def documents_remove(obj: Context, document_id: str, as_json: bool) -> None:
    """Remove a document with its sections, chunks and everything derived from them."""
    from tripartite.lexical.store import remove_document

    with connect(obj.settings) as driver:
        chunks = remove_document(driver, obj.settings.neo4j_database, document_id)
    if chunks is None:
        raise click.ClickException(f"no document with id {document_id!r}; see `tripartite documents list`")
    if as_json:
        emit_json({"removed": document_id, "chunks": chunks})
    else:
        click.echo(f"removed {document_id} ({chunks} chunks)")


@cli.command("trace")
@click.argument("chunk_id")
@click.option("--json", "as_json", is_flag=True)
@pass_context
def trace_command(obj: Context, chunk_id: str, as_json: bool) -> None:
    """Print the path Document > Section > ... > Chunk of a chunk, with its text."""
    from tripartite.lexical.store import trace_chunk

    with connect(obj.settings) as driver:
        trace = trace_chunk(driver, obj.settings.neo4j_database, chunk_id)
    if trace is None:
        raise click.ClickException(f"no chunk with id {chunk_id!r}")
    if as_json:
        emit_json(trace)
        return
    trail = [trace["document"]] + [s["title"] for s in trace["sections"]] + [f"chunk {trace['index']}"]
    click.echo(" > ".join(trail))
    click.echo(f"({trace['document_id']}: {trace['source']}; {trace['tokens']} tokens)\n")
    click.echo(trace["text"])


# ---- ontologies and objects ----------------------------------------------------------------
@cli.group()
def ontology() -> None:
    """Plugin ontologies: concept classes and concepts."""


@ontology.command("load")
@click.argument("name_or_path")
@click.option("--force", is_flag=True, help="Write it even if the same file was loaded before.")
@click.option("--json", "as_json", is_flag=True)
@pass_context
def ontology_load(obj: Context, name_or_path: str, force: bool, as_json: bool) -> None:
    """Load a plugin ontology by NAME (see `ontology plugins`) or an ontology YAML file by PATH."""
    from tripartite.ontology import resolve
    from tripartite.ontology_store import load_ontology

    parsed, plugin = resolve(name_or_path)  # validated completely before anything is written
    with connect(obj.settings) as driver:
        written = load_ontology(driver, obj.settings.neo4j_database, parsed, force=force)
    summary = {"ontology": parsed.name, "classes": len(parsed.classes), "concepts": len(parsed.concepts),
               "plugin": plugin.name if plugin else None, "changed": written}
    if as_json:
        emit_json(summary)
    else:
        verb = "loaded" if written else "unchanged"
        click.echo(f"{verb} {parsed.name}: {len(parsed.classes)} classes, {len(parsed.concepts)} concepts")


@ontology.command("list")
@click.option("--json", "as_json", is_flag=True)
@pass_context
def ontology_list(obj: Context, as_json: bool) -> None:
    """The ontologies loaded in the database."""
    from tripartite.ontology_store import list_ontologies

    with connect(obj.settings) as driver:
        rows = list_ontologies(driver, obj.settings.neo4j_database)
    print_rows(rows, as_json, "no ontology loaded; try `tripartite ontology load cardiology`",
               lambda row: f"{row['id']:<28} v{row['version']:<4} {row['classes']:>3} classes "
                           f"{row['concepts']:>4} concepts  {row['source']}")


@ontology.command("plugins")
@click.option("--json", "as_json", is_flag=True)
def ontology_plugins(as_json: bool) -> None:
    """The plugin ontologies shipped in plugins/."""
    from tripartite.ontology import available_plugins

    plugins = available_plugins()
    if as_json:
        emit_json([{"name": p.name, "description": p.description, "object_kinds": list(p.object_kinds),
                    "folder": str(p.folder)} for p in plugins])
        return
    for p in plugins:
        click.echo(f"{p.name:<24} objects: {', '.join(p.object_kinds) or '-':<14} {p.description}")


@cli.group()
def objects() -> None:
    """The objects under investigation (anamneses, fault reports)."""


@objects.command("add")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--kind", required=True, help="The object kind, e.g. anamnesis or fault-report.")
@click.option("--json", "as_json", is_flag=True)
@pass_context
def objects_add(obj: Context, paths: tuple[str, ...], kind: str, as_json: bool) -> None:
    """Add objects from Markdown or text files (or folders of them); one file is one object."""
    from tripartite.lexical.readers import discover
    from tripartite.objects import add_objects, read_object

    found = discover(paths)
    if found.missing:
        raise click.ClickException(f"{found.missing[0]}: no such file or folder")
    records = [read_object(path, kind) for path in found.supported]  # all read before anything is written
    with connect(obj.settings) as driver:
        report = add_objects(driver, obj.settings.neo4j_database, records)
    if as_json:
        emit_json(report)
        return
    for state in ("added", "changed", "unchanged"):
        for object_id in report[state]:
            click.echo(f"{state:<9} {object_id}")


@objects.command("list")
@click.option("--kind", help="Only objects of this kind.")
@click.option("--json", "as_json", is_flag=True)
@pass_context
def objects_list(obj: Context, kind: str | None, as_json: bool) -> None:
    """The objects, with how many concepts each concerns."""
    from tripartite.objects import list_objects

    with connect(obj.settings) as driver:
        rows = list_objects(driver, obj.settings.neo4j_database, kind)
    print_rows(rows, as_json, "no objects; add some with `tripartite objects add PATH --kind KIND`",
               lambda row: f"{row['id']:<32} {row['kind']:<14} {row['characters']:>7} chars "
                           f"{row['concepts']:>3} concepts")


# ---- pre-analysis ------------------------------------------------------------------------------
@cli.command("analyze")
@click.option("--dry-run", is_flag=True, help="Print the calls and prompt tokens it would spend; change nothing.")
@click.option("--ontology", help="Only this ontology's concepts (default: all loaded).")
@click.option("--concurrency", type=int, default=4, show_default=True, help="LLM calls in flight at once.")
@click.option("--no-prefilter", is_flag=True, help="Send every (concept, chunk) pair to the LLM.")
@click.option("--json", "as_json", is_flag=True)
@pass_context
def analyze_command(obj: Context, dry_run: bool, ontology: str | None, concurrency: int, no_prefilter: bool,
                    as_json: bool) -> None:
    """Extract what each chunk and object says about each concept (e(c,t) and e(o,c))."""
    from tripartite.analysis import Analyzer, dry_run_figures
    from tripartite.embeddings import MiniLMEmbedder
    from tripartite.llm.cache import AnswerCache, cache_key
    from tripartite.llm.providers import make_provider
    from tripartite.llm.runner import LLMRunner
    from tripartite.llm.schema import SCHEMA_VERSION

    settings = obj.settings
    started = time.time()
    embedder = MiniLMEmbedder(settings.cache_dir)  # extracts and concepts are compared in its space
    provider = make_provider(settings, embedder)
    cache = AnswerCache(settings.llm_cache)
    runner = LLMRunner(provider, cache, concurrency=concurrency, backoff_seconds=settings.llm.backoff)
    with connect(settings) as driver:
        analyzer = Analyzer(driver, settings.neo4j_database, embedder, runner, prefilter=not no_prefilter,
                            ontology=ontology)
        if not analyzer.concepts:
            raise click.ClickException("no concepts loaded; run `tripartite ontology load cardiology` first")
        plan = analyzer.plan()

        def cached(task) -> bool:
            return (not provider.offline and
                    cache.get(cache_key(provider.name, provider.model, task.prompt, SCHEMA_VERSION)) is not None)

        figures = dry_run_figures(plan, cached)
        if dry_run:
            if as_json:
                emit_json({"provider": provider.name, "model": provider.model, **figures})
            else:
                click.echo(f"provider {provider.name}, model {provider.model}")
                for stage in ("chunk", "object"):
                    f = figures[stage]
                    click.echo(f"{stage:<7} {f['calls']:>6} calls  {f['prompt_tokens']:>9} prompt tokens "
                               f"(cl100k_base)  {f['cached']:>5} answered from the cache")
                pairs = figures["pairs"]
                click.echo(f"(concept, chunk) pairs: {pairs['naive_calls']} (one call each in the naive scheme), "
                           f"{pairs['after_prefilter']} after the pre-filter")
            return
        total = len(plan.chunk_tasks) + len(plan.object_tasks)
        if not provider.offline and figures["chunk"]["calls"] + figures["object"]["calls"]:
            provider.check_reachable(settings.llm.base_url or "api.openai.com")
        with click.progressbar(length=total, label=f"Analysing ({provider.name})", file=sys.stderr,
                               hidden=as_json or total == 0) as bar:
            errors = analyzer.execute(plan, on_done=bar.update)
        report = analyzer.record(started)
    cache.close()
    if as_json:
        emit_json({"provider": provider.name, "model": provider.model, "errors": errors, **report,
                   "pairs": figures["pairs"]})
    else:
        click.echo(f"{'stage':<7} {'tasks':>6} {'calls':>6} {'cached':>6} {'retries':>7} {'repairs':>7} "
                   f"{'failed':>6} {'prompt tok':>10} {'completion':>10}")
        for stage, st in report["stages"].items():
            click.echo(f"{stage:<7} {st['tasks']:>6} {st['calls']:>6} {st['cache_hits']:>6} {st['retries']:>7} "
                       f"{st['repairs']:>7} {st['failures']:>6} {st['prompt_tokens']:>10} {st['completion_tokens']:>10}")
        for error in errors[:5]:
            click.echo(f"error: {error}", err=True)
        if len(errors) > 5:
            click.echo(f"error: ... and {len(errors) - 5} more failed tasks; they stay pending, run analyze again",
                       err=True)
    if errors:
        sys.exit(1)


# ---- selection and prompts ------------------------------------------------------------------------
def _probability(name: str):
    def check(ctx, param, value):
        if value is not None and not 0.0 <= value <= 1.0:
            raise click.BadParameter(f"{value} is not a probability; use 0 to 1", param_hint=name)
        return value
    return check


@cli.command("select")
@click.option("--alpha", type=float, default=0.9, show_default=True, callback=_probability("--alpha"),
              help="Select a candidate when its percentile P_c(w) exceeds this.")
@click.option("--beta", type=float, default=0.5, show_default=True, callback=_probability("--beta"),
              help="Markov blanket: also select a candidate sharing a chunk with a selected one above this.")
@click.option("--object", "object_ids", multiple=True, help="Only (re)score these objects (incremental).")
@click.option("--json", "as_json", is_flag=True)
@pass_context
def select_command(obj: Context, alpha: float, beta: float, object_ids: tuple[str, ...], as_json: bool) -> None:
    """Score every (object, concept, chunk) candidate and classify it (cypher/selection/).
    With --object, score those objects alone and update only what their scores change."""
    from tripartite.selection import select

    with connect(obj.settings) as driver:
        report = select(driver, obj.settings.neo4j_database, alpha, beta, list(object_ids) or None)
    if as_json:
        emit_json({"alpha": alpha, "beta": beta, **vars(report)})
    else:
        scope = f" of {', '.join(object_ids)}" if object_ids else ""
        click.echo(f"{report.candidates} candidates{scope} over {report.concepts} concepts: {report.selected_alpha} "
                   f"selected by alpha > {alpha}, {report.selected_beta} more by the beta > {beta} blanket")


@cli.command("prompt")
@click.argument("object_id")
@click.option("--question", default=None, help="The question about the object (default: a generic one).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--max-per-concept", type=click.IntRange(min=1), default=None,
              help="A budget beyond the paper: each concept keeps only its N best extracts by w.")
@pass_context
def prompt_command(obj: Context, object_id: str, question: str | None, fmt: str, max_per_concept: int | None) -> None:
    """The prompt for one object: its concepts, each with the selected evidence and references."""
    from tripartite.selection import DEFAULT_QUESTION, build_prompt, parameters, prompt_material

    with connect(obj.settings) as driver:
        rows = prompt_material(driver, obj.settings.neo4j_database, object_id, max_per_concept)
        alpha, beta = parameters(driver, obj.settings.neo4j_database)
    if not rows:
        raise click.ClickException(f"object {object_id!r} has no analysed concepts; run `tripartite analyze` "
                                   "and `tripartite select` first (see `tripartite objects list`)")
    result = build_prompt(object_id, rows, question or DEFAULT_QUESTION, alpha, beta)
    if fmt == "json":
        emit_json(result)
    else:
        click.echo(result["prompt"], nl=False)
        click.echo(f"\n({result['tokens']} tokens, cl100k_base)", err=True)


@cli.command("rag-prompt")
@click.argument("object_id")
@click.option("--top-k", type=click.IntRange(min=1), help="Take the k chunks most similar to the object's text.")
@click.option("--min-score", type=float, callback=_probability("--min-score"),
              help="Take every chunk whose index score, (1 + cos) / 2, is at least this.")
@click.option("--question", default=None, help="The question about the object.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@pass_context
def rag_prompt_command(obj: Context, object_id: str, top_k: int | None, min_score: float | None,
                       question: str | None, fmt: str) -> None:
    """The vector-RAG baseline prompt for an object (neo4j-graphrag's VectorRetriever)."""
    from tripartite.embeddings import make_embedder
    from tripartite.rag import rag_prompt, retrieve
    from tripartite.selection import DEFAULT_QUESTION

    if (top_k is None) == (min_score is None):
        raise click.UsageError("give exactly one of --top-k K or --min-score S")
    settings = obj.settings
    with connect(settings) as driver:
        records, _, _ = driver.execute_query("MATCH (o:Object {id: $id}) RETURN o.text AS text", id=object_id,
                                             database_=settings.neo4j_database)
        if not records:
            raise click.ClickException(f"no object with id {object_id!r}; see `tripartite objects list`")
        chunks = retrieve(driver, settings.neo4j_database, make_embedder(settings), records[0]["text"], top_k,
                          min_score)
    result = rag_prompt(object_id, records[0]["text"], chunks, question or DEFAULT_QUESTION)
    if fmt == "json":
        emit_json(result)
    else:
        click.echo(result["prompt"], nl=False)
        click.echo(f"\n({result['tokens']} tokens, cl100k_base; {len(chunks)} chunks)", err=True)


@cli.command("ask")
@click.argument("object_id")
@click.option("--question", default=None, help="The question about the object.")
@click.option("--max-per-concept", type=click.IntRange(min=1), default=None,
              help="A budget beyond the paper: each concept keeps only its N best extracts by w.")
@pass_context
def ask_command(obj: Context, object_id: str, question: str | None, max_per_concept: int | None) -> None:
    """Send the object's Tripartite prompt to the configured LLM; print the answer and references."""
    from tripartite.llm.cache import AnswerCache
    from tripartite.llm.providers import ProviderError, RetryableError, make_provider
    from tripartite.llm.runner import LLMRunner
    from tripartite.selection import DEFAULT_QUESTION, build_prompt, parameters, prompt_material

    settings = obj.settings
    if not settings.llm.configured:
        raise click.ClickException("ask needs an LLM: set TRIPARTITE_LLM_MODEL (plus OPENAI_API_KEY, or "
                                   "OPENAI_BASE_URL for a local OpenAI-compatible server)")
    with connect(settings) as driver:
        rows = prompt_material(driver, settings.neo4j_database, object_id, max_per_concept)
        alpha, beta = parameters(driver, settings.neo4j_database)
    if not rows:
        raise click.ClickException(f"object {object_id!r} has no analysed concepts; run analyze and select first")
    built = build_prompt(object_id, rows, question or DEFAULT_QUESTION, alpha, beta)
    provider = make_provider(settings, None)
    provider.check_reachable(settings.llm.base_url or "api.openai.com")
    runner = LLMRunner(provider, AnswerCache(settings.llm_cache), backoff_seconds=settings.llm.backoff)
    try:
        answer = runner.complete_text(built["prompt"])
    except (ProviderError, RetryableError) as exc:
        raise click.ClickException(f"the LLM call failed: {exc}") from None
    click.echo(answer.strip())
    references = [e for concept in built["concepts"] for e in concept["evidence"]]
    if references:
        click.echo("\nReferences:")
        for n, ref in enumerate(references, start=1):
            click.echo(f"[{n}] {ref['document']} > {' > '.join(ref['section_path'])} (chunk {ref['chunk_id']})")


def _ensure_server(obj: Context, say_: Callable[[str], None]) -> None:
    """Start the local Neo4j unless the user configured a server of their own."""
    if not obj.settings.uri_from_user:
        local = _local_server(obj)
        if not local.status().running:
            say_("starting the local Neo4j (first time: fetching its jars from Maven Central)")
            local.start()


@cli.command("demo")
@click.option("--json", "as_json", is_flag=True)
@pass_context
def demo_command(obj: Context, as_json: bool) -> None:
    """The main job end to end on the built-in sample, offline: server, migrations, ingest,
    ontology, objects, analysis, selection, then one prompt and a comparison with vector RAG."""
    from tripartite.demo import DEMO_OBJECT, run_demo
    from tripartite.evaluation.measure import Measurement
    from tripartite.evaluation.report import per_object_table

    settings = obj.settings
    quiet = (lambda message: None) if as_json else say
    _ensure_server(obj, quiet)
    with connect(settings) as driver:
        result = run_demo(settings, driver, quiet)
    if as_json:
        emit_json(result)
        return
    click.echo(f"\n==== The Tripartite prompt for {DEMO_OBJECT} ({result['prompt']['tokens']} tokens) ====\n")
    click.echo(result["prompt"]["prompt"])
    click.echo("==== Tripartite prompts against vector RAG on the sample objects ====\n")
    for line in per_object_table([Measurement(**row) for row in result["table"]]):
        click.echo(line)
    click.echo("\nA concept of the object is covered when a chunk the prompt cites carries an extract of it.")
    click.echo("Explore the graph: http://127.0.0.1:%d/browser/ (see the README)" % settings.server.http_port)


def _number_list(kind: type, name: str, allow_none: bool = False, low: float | None = None,
                 high: float | None = None):
    """A comma-separated list of numbers, each within [low, high]."""
    def parse(ctx, param, value: str):
        if allow_none and value.strip().lower() == "none":
            return ()
        try:
            values = tuple(kind(v) for v in value.split(",") if v.strip())
        except ValueError:
            raise click.BadParameter(f"{value!r}: give comma-separated numbers, e.g. 1,3,5", param_hint=name) from None
        if not values:
            raise click.BadParameter("give at least one value", param_hint=name)
        for v in values:
            if (low is not None and v < low) or (high is not None and v > high):
                bounds = f"{low:g} to {high:g}" if high is not None else f"at least {low:g}"
                raise click.BadParameter(f"{v:g} is out of range; use {bounds}", param_hint=name)
        return values
    return parse


@cli.command("eval")
@click.argument("documents", nargs=-1, required=True)
@click.argument("ontology")
@click.argument("objects")
@click.option("--kind", help="The objects' kind (default: the plugin's, else 'object').")
@click.option("--alpha", type=float, default=0.9, show_default=True, callback=_probability("--alpha"))
@click.option("--beta", type=float, default=0.5, show_default=True, callback=_probability("--beta"))
@click.option("--top-k", default="1,3,5,10,20", show_default=True, callback=_number_list(int, "--top-k", low=1),
              help="RAG settings: the k best chunks.")
@click.option("--min-score", default="0.68,0.66,0.64,0.62", show_default=True, callback=_number_list(float, "--min-score", low=0, high=1),
              help="RAG settings: every chunk with score (1 + cos) / 2 at least this.")
@click.option("--max-per-concept", "budgets", default="1,2", show_default=True, callback=_number_list(int, "--max-per-concept", allow_none=True, low=1),
              help="Also measure Tripartite prompts with a budget of N best extracts per concept ('none' for no such rows).")
@click.option("--sweep-alpha", default="0.5,0.7,0.8,0.9,0.95,0.98", show_default=True,
              callback=_number_list(float, "--sweep-alpha", low=0, high=1))
@click.option("--sweep-beta", default="0,0.3,0.5,0.7,0.9", show_default=True,
              callback=_number_list(float, "--sweep-beta", low=0, high=1))
@click.option("--question", default=None, help="The question in every prompt (default: a generic one).")
@click.option("--out", default="eval-results", show_default=True, type=click.Path(file_okay=False),
              help="Folder for eval.md, eval.json and eval.png.")
@click.option("--offline", is_flag=True, help="The local embedder and extractive provider, even if an LLM is configured.")
@click.option("--reset", is_flag=True, help="Empty the database first (all but the migration history).")
@click.option("--concurrency", type=int, default=4, show_default=True, help="LLM calls in flight at once.")
@click.option("--json", "as_json", is_flag=True)
@pass_context
def eval_command(obj: Context, documents: tuple[str, ...], ontology: str, objects: str, kind: str | None,
                 alpha: float, beta: float, top_k: tuple[int, ...], min_score: tuple[float, ...],
                 budgets: tuple[int, ...], sweep_alpha: tuple[float, ...], sweep_beta: tuple[float, ...], question: str | None, out: str,
                 offline: bool, reset: bool, concurrency: int, as_json: bool) -> None:
    """Compare Tripartite prompts with vector RAG on DOCUMENTS..., ONTOLOGY and OBJECTS:
    per object, prompt tokens and how many of its concepts each prompt covers."""
    from pathlib import Path

    from tripartite.evaluation.measure import RagSetting
    from tripartite.evaluation.report import summary_table, verdict_lines
    from tripartite.evaluation.run import EvalOptions, evaluate
    from tripartite.pipeline import Inputs
    from tripartite.selection import DEFAULT_QUESTION

    settings = obj.settings
    quiet = (lambda message: None) if as_json else say
    rag = tuple(RagSetting(top_k=k) for k in top_k) + tuple(RagSetting(min_score=s) for s in min_score)
    options = EvalOptions(alpha, beta, rag, sweep_alpha, sweep_beta, question or DEFAULT_QUESTION, Path(out),
                          offline=offline, reset=reset, concurrency=concurrency, budgets=budgets)
    _ensure_server(obj, quiet)
    with connect(settings) as driver:
        result = evaluate(settings, driver, Inputs(documents, ontology, (objects,), kind), options, quiet)
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


# ---- doctor / config ------------------------------------------------------------------------
@cli.command("doctor")
@click.option("--json", "as_json", is_flag=True)
@pass_context
def doctor_command(obj: Context, as_json: bool) -> None:
    """Check Neo4j, APOC, migrations, the embedding model and the LLM endpoint."""
    from tripartite.doctor import run_checks

    checks = run_checks(obj.settings)
    if as_json:
        emit_json([c.as_dict() for c in checks])
    else:
        for check in checks:
            mark = "ok  " if check.ok else "FAIL"
            click.echo(f"[{mark}] {check.name}: {check.detail}")
    if not all(c.ok for c in checks if c.required):
        sys.exit(1)


@cli.command("config")
@pass_context
def config_command(obj: Context) -> None:
    """Print the resolved configuration as JSON (secrets shown only as set / not set)."""
    emit_json(obj.settings.describe())


@cli.group()
def models() -> None:
    """The local embedding model's files."""


@models.command("fetch")
@pass_context
def models_fetch(obj: Context) -> None:
    """Fetch and cache the all-MiniLM-L6-v2 tokenizer (once), then load the model."""
    from tripartite.embeddings import MiniLMEmbedder

    embedder = MiniLMEmbedder(obj.settings.cache_dir)
    click.echo(f"{embedder.name} ready ({embedder.dimensions} dimensions)")


def main() -> None:
    # The driver logs retries and server notifications as warnings; the CLI reports
    # failures itself, as one line each.
    logging.getLogger("neo4j").addHandler(logging.NullHandler())
    logging.getLogger("neo4j").propagate = False
    cli(prog_name="tripartite")


if __name__ == "__main__":
    main()
