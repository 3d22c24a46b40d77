"""The lexical graph: `ingest`, `embed`, `documents list|remove` and `trace`. Imports of the
pipeline stay inside the commands, so --help stays fast."""
from __future__ import annotations

import click

from tripartite.cli.common import App, FiniteFloatRange, output, pass_app, progress, rows_or_hint, say
from tripartite.infra.config import ChunkingSettings
from tripartite.infra.errors import TripartiteError


def embed_pending(app: App) -> int:
    """Embed the chunks that lack a vector from the configured model, with a progress bar."""
    from tripartite.infra.embeddings import make_embedder
    from tripartite.lexical.embed import embed_chunks, pending_count

    embedder = make_embedder(app.settings)
    pending = pending_count(app.graph, embedder.name)
    if not pending:
        return 0
    with progress(f"Embedding ({embedder.name})", pending) as bar:
        return embed_chunks(app.graph, embedder, on_progress=bar.update)


def _ingest_lines(report: dict) -> list[str]:
    from tripartite.lexical.readers import hidden_line, irregular_line

    lines = [f"{'replaced' if doc['replaced'] else 'ingested':<9} {doc['id']}: {doc['sections']} sections, "
             f"{doc['chunks']} chunks" + (f" (YAML front matter left out: {', '.join(doc['front_matter'])})"
                                          if doc["front_matter"] else "")
             + (f" (file unchanged, chunked anew: {doc['rechunked']})" if doc.get("rechunked") else "")
             for doc in report["ingested"]]
    lines += [f"unchanged {doc['id']}" for doc in report["unchanged"]]
    lines += [f"skipped   {item['path']}: {item['reason']}" for item in report["skipped"]]
    lines += [line for line in [hidden_line(report["hidden"]), irregular_line(report["irregular"])] if line]
    lines += [f"note: {item['path']} is stored as {item['id']}: the id {item['wanted']} belongs to {item['taken_by']} "
              "(--replace replaces that document instead)" for item in report["renamed"]]
    lines += [f"note: {item['path']} is gone, yet its text stays in the graph as document {item['id']} and is "
              f"quoted: `tripartite documents remove {item['id']}` removes it" for item in report["gone"]]
    if report["embedded"]:
        lines.append(f"embedded  {report['embedded']} chunks")
    for path in report["missing"]:
        click.echo(f"error: {path}: no such file or folder", err=True)
    for item in report["failed"]:
        click.echo(f"error: {item['error']}", err=True)
    return lines


@click.command("ingest")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--chunk-tokens", type=int, help="Largest chunk, in the embedding model's tokens (default "
                                               f"{ChunkingSettings.max_tokens}, or [chunking] max_tokens).")
@click.option("--max-mb", type=FiniteFloatRange(min=0, min_open=True),
              help=f"Refuse files larger than this many MB (default {ChunkingSettings.max_mb:g}, or [chunking] max_mb).")
@click.option("--no-embed", is_flag=True, help="Write the graph only; embed later with `tripartite embed`.")
@click.option("--replace", is_flag=True,
              help="A file whose id belongs to a document from another source replaces that document "
                   "(default: it is stored under its id with a short hash added).")
@output(_ingest_lines, exit_code=lambda report: 1 if report["failed"] or report["missing"] else 0)
@pass_app
def ingest_command(app: App, paths: tuple[str, ...], chunk_tokens: int | None, max_mb: float | None,
                   no_embed: bool, replace: bool) -> dict:
    """Ingest Markdown, text and PDF files (or folders of them) into the lexical graph."""
    from tripartite.infra.locks import run_lock
    from tripartite.kg.communities import describe
    from tripartite.lexical.ingest import LOCK, LOCK_COMMANDS, ingest_paths
    from tripartite.lexical.readers import discover
    from tripartite.lexical.token_counters import make_token_counter

    settings = app.settings
    max_tokens = chunk_tokens or settings.chunking.max_tokens
    counter = make_token_counter(settings)
    if max_tokens < 16 or max_tokens + 2 > counter.window:
        fix = f"use 16 to {counter.window - 2}"
        if chunk_tokens is None:
            raise TripartiteError(f"[chunking] max_tokens = {max_tokens} does not fit the embedding model's "
                                  f"{counter.window}-token window; {fix} in {settings.config_file}")
        raise click.BadParameter(f"{max_tokens} does not fit the embedding model's {counter.window}-token window; "
                                 f"{fix}", param_hint="--chunk-tokens")
    max_bytes = int((max_mb or settings.chunking.max_mb) * 1024 * 1024)
    total = len(discover(paths).supported)
    with run_lock(app.graph, LOCK, LOCK_COMMANDS, say):  # a second ingest waits, then embeds nothing twice
        with progress("Ingesting", total, hidden=total < 2) as bar:
            report = ingest_paths(app.graph, list(paths), counter, max_tokens, max_bytes,
                                  on_file=lambda path: bar.update(1), replace=replace, on_triplets_changed=describe)
        embedded = None if no_embed else embed_pending(app)
    return {**report.as_dict(), "embedded": embedded}


def _embed_lines(result: dict) -> list[str]:
    if "embedded" in result:
        return [f"embedded {result['embedded']['chunks']} chunks, {result['embedded']['extracts']} extracts, "
                f"{result['embedded']['communities']} community reports"]
    lines = [f"models: chunks and reports {result['models']['chunks']}, extracts {result['models']['extracts']}"]
    lines += [f"  {row['kind']:<12} {row['items']:>8,}  {row['model'] or 'not embedded'}" for row in result["by_model"]]
    stale = {kind: n for kind, n in result["stale"].items() if n}
    if not stale:
        return lines + ["nothing to re-embed"]
    return lines + [f"to re-embed: {', '.join(f'{n:,} {kind}' for kind, n in stale.items())}, about "
                    f"{result['seconds']:,.0f} s on this machine"
                    + (f"; vector indexes rebuilt: {', '.join(result['indexes_rebuilt'])}" if result["indexes_rebuilt"]
                       else "") + "; run `tripartite embed` (it resumes where it stops), then `tripartite select`"]


@click.command("embed")
@click.option("--dry-run", is_flag=True, help="Say what each model made, what would be re-embedded and about how "
                                              "long it takes; change nothing.")
@output(_embed_lines)
@pass_app
def embed_command(app: App, dry_run: bool) -> dict:
    """Make every vector of the graph with the configured models: chunks (their text's, and their
    headings' and text's), the pre-analysis' extracts and community reports. After a model
    change, what another model made is re-embedded in batches, each in its own transaction (an
    interrupted run resumes); a vector index of another size is made again."""
    from tripartite.infra.embeddings import local_embedder, make_embedder
    from tripartite.infra.locks import run_lock
    from tripartite.reembed import Embedders, plan, reembed

    embedders = Embedders(make_embedder(app.settings), local_embedder(app.settings))
    planned = plan(app.graph, embedders)
    if dry_run:
        return planned
    total = sum(planned["stale"].values())
    with run_lock(app.graph, "analyze", "embed", say), run_lock(app.graph, "select", "embed", say), \
            progress(f"Embedding ({embedders.chunks.name})", total) as bar:
        done = reembed(app.graph, embedders, on_progress=bar.update)
    if done["extracts"]:
        say("note: the extracts' vectors changed; run `tripartite select` before asking for prompts")
    return {"embedded": done, "models": embedders.models()}


@click.group("documents")
def documents_group() -> None:
    """The documents in the lexical graph."""


@documents_group.command("list")
@output(rows_or_hint("no documents; add some with `tripartite ingest PATH`",
                     lambda row: f"{row['id']:<32} {row['format']:<8} {row['sections']:>4} sections "
                                 f"{row['chunks']:>6} chunks {row['embedded']:>6} embedded  {row['path']}"))
@pass_app
def documents_list(app: App) -> list[dict]:
    """Every document with its sections, chunks and embedded chunks."""
    from tripartite.lexical.store import list_documents

    return list_documents(app.graph)


@documents_group.command("remove")
@click.argument("document_id")
@output(lambda removed: [f"removed {removed['removed']} ({removed['chunks']} chunks)"])
@pass_app
def documents_remove(app: App, document_id: str) -> dict:
    """Remove a document with its sections, chunks and everything derived from them."""
    from tripartite.infra.locks import run_lock
    from tripartite.lexical.ingest import LOCK, LOCK_COMMANDS
    from tripartite.kg.communities import describe
    from tripartite.lexical.store import remove_document

    with run_lock(app.graph, LOCK, LOCK_COMMANDS, say):
        chunks = remove_document(app.graph, document_id, on_triplets_changed=describe)
    if chunks is None:
        raise TripartiteError(f"no document with id {document_id!r}; see `tripartite documents list`")
    return {"removed": document_id, "chunks": chunks}


def _trace_lines(trace: dict) -> list[str]:
    from tripartite.lexical.trails import reference_trail

    # The document's title once, as prompts' references write it (its top heading often repeats it).
    trail = reference_trail({"document": trace["document"], "section_path": [s["title"] for s in trace["sections"]]})
    return [f"{trail} > chunk {trace['index']}", f"({trace['document_id']}: {trace['source']}; {trace['tokens']} "
            "tokens)", "", trace["text"]]


@click.command("trace")
@click.argument("chunk_id")
@output(_trace_lines)
@pass_app
def trace_command(app: App, chunk_id: str) -> dict:
    """Print the path Document > Section > ... > Chunk of a chunk, with its text."""
    from tripartite.lexical.store import trace_chunk

    trace = trace_chunk(app.graph, chunk_id)
    if trace is None:
        raise TripartiteError(f"no chunk with id {chunk_id!r}")
    return trace


COMMANDS = [ingest_command, embed_command, documents_group, trace_command]
