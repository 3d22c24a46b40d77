"""Plugin ontologies: `ontology plugins|load|list`. Imports of the pipeline stay inside the
commands, so --help stays fast."""
from __future__ import annotations

import click

from tripartite.cli.common import App, output, pass_app, rows_or_hint


@click.group("ontology")
def ontology_group() -> None:
    """Plugin ontologies: concept classes and concepts."""


@ontology_group.command("load")
@click.argument("name_or_path")
@click.option("--force", is_flag=True, help="Write it even if the same file was loaded before.")
@output(lambda s: [f"{'loaded' if s['changed'] else 'unchanged'} {s['ontology']}: {s['classes']} classes, "
                   f"{s['concepts']} concepts"])
@pass_app
def ontology_load(app: App, name_or_path: str, force: bool) -> dict:
    """Load a plugin ontology by NAME (see `ontology plugins`) or an ontology YAML file by PATH."""
    from tripartite.ontology.plugins import resolve
    from tripartite.ontology.store import load_ontology

    parsed, plugin = resolve(name_or_path)  # validated completely before anything is written
    written = load_ontology(app.graph, parsed, plugin.question if plugin else "", force=force)
    return {"ontology": parsed.name, "classes": len(parsed.classes), "concepts": len(parsed.concepts),
            "plugin": plugin.name if plugin else None, "changed": written}


@ontology_group.command("list")
@output(rows_or_hint("no ontology loaded; try `tripartite ontology load cardiology`",
                     lambda row: f"{row['id']:<28} v{row['version']:<4} {row['classes']:>3} classes "
                                 f"{row['concepts']:>4} concepts  {row['source']}"))
@pass_app
def ontology_list(app: App) -> list[dict]:
    """The ontologies loaded in the database."""
    from tripartite.ontology.store import list_ontologies

    return list_ontologies(app.graph)


@ontology_group.command("plugins")
@output(lambda plugins: [f"{p['name']:<24} objects: {', '.join(p['object_kinds']) or '-':<14} {p['description']}"
                         for p in plugins])
def ontology_plugins() -> list[dict]:
    """The plugin ontologies shipped in plugins/."""
    from tripartite.ontology.plugins import available_plugins

    return [{"name": p.name, "description": p.description, "object_kinds": list(p.object_kinds),
             "question": p.question, "folder": str(p.folder)} for p in available_plugins()]


COMMANDS = [ontology_group]
