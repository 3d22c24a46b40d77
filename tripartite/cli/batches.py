"""The Batch API's batches: `batches list|status|collect` (`--batch` on analyze, kg extract
and kg communities sends them). Imports of the pipeline stay inside the commands, so --help
stays fast."""
from __future__ import annotations

import click

from tripartite.cli.common import App, output, pass_app, rows_or_hint, say


def submitted_lines(result: dict) -> list[str]:
    """What `--batch` prints: the batch sent, or that nothing needed sending."""
    if not result["id"]:
        return [f"nothing to send for {result['stage']}: all {result['cached']} answers are in the cache; "
                "run the command without --batch to write them"]
    return [f"sent batch {result['id']} ({result['stage']}): {result['requests']} requests at the Batch API's half "
            f"price, answered within 24 h ({result['cached']} answers were already cached)",
            "`tripartite batches status` follows it; `tripartite batches collect` writes its answers"]


def _batch_line(b: dict) -> str:
    done = f"collected: {b['answered']} answered, {b['failed']} failed" if b["collected"] else \
        f"{b['completed']} of {b['requests']} done, {b['failed']} failed"
    return f"{b['id']}  {b['stage']:<10}  {b['state']:<11}  {done}  ({b['model']}, sent {b['submitted_at'][:19]})"


@click.group("batches")
def batches_group() -> None:
    """Batches sent to the OpenAI Batch API: list, follow and collect them."""


@batches_group.command("list")
@output(rows_or_hint("no batches; `--batch` on analyze, kg extract or kg communities sends one", _batch_line))
@pass_app
def batches_list(app: App) -> list[dict]:
    """Every batch this graph remembers, newest first (the state as last seen)."""
    from tripartite import batches

    return batches.list_batches(app.graph)


@batches_group.command("status")
@click.argument("batch_id", required=False)
@output(rows_or_hint("no open batches", _batch_line))
@pass_app
def batches_status(app: App, batch_id: str | None) -> list[dict]:
    """Each open batch (or BATCH_ID) as the API reports it now."""
    from tripartite import batches

    return batches.status(app.settings, app.graph, batch_id)


def _collected_lines(results: list[dict]) -> list[str]:
    lines = []
    for r in results:
        if not r["collected"]:
            lines.append(f"{r['id']} ({r['stage']}): {r['state']}, {r['completed']} of {r['requests']} done; "
                         "still running, collect again later")
            continue
        line = (f"{r['id']} ({r['stage']}): {r['state']}; {r['answered']} answers written through the cache, "
                f"{r['failed']} failed")
        if r["stale"]:
            line += f", {r['stale']} no longer asked for (the graph changed)"
        lines.append(line)
        if r["pending"]:
            lines.append(f"  {r['pending']} tasks stay pending: `tripartite {r['command']}` (or with --batch) sends "
                         "only them")
        for error in r["errors"][:3]:
            say(f"error: {error}")
    return lines or ["no open batches"]


@batches_group.command("collect")
@click.argument("batch_id", required=False)
@output(_collected_lines, exit_code=lambda results: 1 if any(r.get("errors") for r in results) else 0)
@pass_app
def batches_collect(app: App, batch_id: str | None) -> list[dict]:
    """Write the answers of every finished open batch (or BATCH_ID) through the cache and the
    stage's writer; failed or expired requests stay pending for the next run."""
    from tripartite import batches

    return batches.collect(app.settings, app.graph, batch_id)


COMMANDS = [batches_group]
