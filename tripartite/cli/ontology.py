"""Plugin ontologies: `ontology plugins|load|list|import|remove|draft`. Imports of the pipeline stay inside the
commands, so --help stays fast."""
from __future__ import annotations

from pathlib import Path

import click

from tripartite.infra.errors import TripartiteError
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


def _import_lines(s: dict) -> list[str]:
    lines = [f"reported  {line}" for line in s["problems"]]
    lines.append(f"imported {s['name']}: {s['classes']} classes, {s['concepts']} concepts under {s['root']} "
                 f"({s['terms_read']} terms read, {s['obsolete_skipped']} obsolete skipped, "
                 f"{len(s['problems'])} problems reported) -> {s['folder']}")
    if s.get("loaded") is not None:
        lines.append(f"{'loaded' if s['loaded'] else 'unchanged'} {s['name']}")
    else:
        lines.append(f"curate {s['folder']}/ontology.yaml, then `tripartite ontology load {s['folder']}`")
    return lines


@ontology_group.command("import")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--root", required=True, help="The term whose branch to take: an id as the file writes it "
                                            "(DOID:1287), an IRI, or a unique name.")
@click.option("--name", required=True, help="The new ontology's name (its concepts' id prefix).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("."), show_default=True,
              help="Where the plugin folder NAME/ is written.")
@click.option("--depth", type=click.IntRange(min=2), default=None,
              help="Take terms at most this many is_a steps below the root (default: all).")
@click.option("--class-level", type=click.IntRange(min=1), default=1, show_default=True,
              help="Terms this many steps below the root become concept classes; 1: the root's children.")
@click.option("--language", default="en", show_default=True, help="Label language for OWL and SKOS files.")
@click.option("--load", "load_now", is_flag=True, help="Load the written plugin into the database.")
@click.option("--force", is_flag=True, help="Replace an existing folder NAME/ under --out.")
@output(_import_lines)
@pass_app
def ontology_import(app: App, file: Path, root: str, name: str, out: Path, depth: int | None, class_level: int,
                    language: str, load_now: bool, force: bool) -> dict:
    """Import the branch under --root of an OBO, OWL, SKOS or CSV file as a plugin folder to curate.

    The root's children become concept classes (or the level --class-level gives), their
    descendants concepts with BROADER edges from is_a; exact and related synonyms are kept
    apart, obsolete terms skipped, and cycles, missing parents and duplicate names reported one
    line each. Nothing is written unless the whole branch reads cleanly."""
    from tripartite.ontology.importer import import_branch

    if load_now:
        _ = app.graph  # connecting: an unreachable database fails here, before any file is written
    result = import_branch(file, root, name, out, depth=depth, class_level=class_level, language=language,
                           force=force)
    branch = result.branch
    summary = {"name": name, "root": f"{branch.root.id} ({branch.root.name})", "folder": str(result.folder),
               "classes": len(branch.classes), "concepts": branch.concept_count, "terms_read": result.terms_read,
               "obsolete_skipped": branch.obsolete, "problems": branch.problems, "loaded": None}
    if load_now:
        from tripartite.ontology.plugins import resolve
        from tripartite.ontology.store import load_ontology

        parsed, plugin = resolve(str(result.folder))
        summary["loaded"] = load_ontology(app.graph, parsed, plugin.question if plugin else "", force=force)
    return summary


@ontology_group.command("remove")
@click.argument("name")
@output(lambda s: [f"removed {s['ontology']}: {s['classes']} classes, {s['concepts']} concepts, "
                   f"{s['chunk_extracts']} chunk extracts, {s['object_extracts']} object extracts, "
                   f"{s['evidence']} Evidence, {s['distributions']} score distributions; "
                   f"run `tripartite select` to rebuild the selection"])
@pass_app
def ontology_remove(app: App, name: str) -> dict:
    """Remove the loaded ontology NAME and everything derived from it: extract edges, Evidence,
    score distributions. The LLM's answers stay cached, so loading it again costs no calls."""
    from tripartite.ontology.store import list_ontologies, remove_ontology

    removed = remove_ontology(app.graph, name)
    if removed is None:
        loaded = ", ".join(row["id"] for row in list_ontologies(app.graph)) or "none"
        raise TripartiteError(f"ontology {name!r} is not loaded (loaded: {loaded}); see `tripartite ontology list`")
    return removed


COMMANDS = [ontology_group]
