"""Plugin ontologies in the graph: `ontology plugins|load|list|find|remove` (import and draft, which
write plugin folders, are in ontology_files.py). Imports of the pipeline stay inside the
commands, so --help stays fast."""
from __future__ import annotations

import click

from tripartite.infra.errors import TripartiteError
from tripartite.cli.common import App, output, pass_app, rows_or_hint, say
from tripartite.cli.ontology_files import ontology_draft, ontology_import


@click.group("ontology")
def ontology_group() -> None:
    """Plugin ontologies: concept classes and concepts."""


@ontology_group.command("load")
@click.argument("name_or_path")
@click.option("--force", is_flag=True, help="Write it even if the same file was loaded before.")
@click.option("--replace", is_flag=True,
              help="Replace an ontology of the same name loaded from another file (the extracts of concepts the "
                   "new file does not keep go).")
@output(lambda s: [f"{'loaded' if s['changed'] else 'unchanged'} {s['ontology']}: {s['classes']} classes, "
                   f"{s['concepts']} concepts"] + _changed_lines(s) + [f"note: {line}" for line in s["duplicates"]])
@pass_app
def ontology_load(app: App, name_or_path: str, force: bool, replace: bool) -> dict:
    """Load a plugin ontology by NAME (see `ontology plugins`) or an ontology YAML file by PATH."""
    from tripartite.ontology.duplicates import shared_labels
    from tripartite.ontology.plugins import resolve
    from tripartite.ontology.store import load_ontology

    parsed, plugin = resolve(name_or_path)  # validated completely before anything is written
    loaded = load_ontology(app.graph, parsed, plugin, force=force, replace=replace)
    return {"ontology": parsed.name, "classes": len(parsed.classes), "concepts": len(parsed.concepts),
            "plugin": plugin.name if plugin else None, "changed": loaded.written, "reworded": loaded.reworded,
            "added": loaded.added, "removed": loaded.removed, "removed_extracts": loaded.removed_extracts,
            "duplicates": shared_labels(app.graph, parsed)}  # labels two concepts share: a note each


def _named(ids: list[str]) -> str:
    return ", ".join(ids[:3]) + (", ..." if len(ids) > 3 else "")


def _changed_lines(loaded: dict) -> list[str]:
    """What a reload leaves to do: concepts reworded (the reader's answers were to the old
    words) or added are read by the next analyze; removed ones took their extracts along."""
    lines = []
    reworded, added, removed = loaded["reworded"], loaded["added"], loaded["removed"]
    if reworded:
        extracts = sum(r["chunk_extracts"] + r["object_extracts"] for r in reworded)
        lines.append(f"{len(reworded)} concepts reworded ({_named([r['id'] for r in reworded])}): `tripartite "
                     f"analyze` reads every chunk and object for them again, then `tripartite select` (their "
                     f"{extracts} extracts stay until then)")
    if added:
        lines.append(f"{len(added)} concepts new ({_named(added)}): no chunk or object was read for them yet, so no "
                     "prompt has them: `tripartite analyze`, then `tripartite select`")
    if removed:
        lines.append(f"{len(removed)} concepts removed ({_named(removed)}), with their {loaded['removed_extracts']} "
                     "extracts: `tripartite select` updates the prompts")
    return lines


@ontology_group.command("list")
@output(rows_or_hint("no ontology loaded; try `tripartite ontology load cardiology`",
                     lambda row: f"{row['id']:<28} v{row['version']:<4} {row['classes']:>3} classes "
                                 f"{row['concepts']:>4} concepts  {row['source']}"))
@pass_app
def ontology_list(app: App) -> list[dict]:
    """The ontologies loaded in the database."""
    from tripartite.ontology.store import list_ontologies

    return list_ontologies(app.graph)


def _found_lines(row: dict) -> list[str]:
    codes = ", ".join(dict.fromkeys(c for c in [row["notation"], row["source"], *row["xrefs"]] if c))
    lines = [f"{row['id']}  {row['name']}  ({row['ontology']}, class {row['class']}; matched by {row['matched']})"]
    for label, values in (("codes", [codes] if codes else []), ("synonyms", row["synonyms"]),
                          ("broader", row["broader"]), ("narrower", row["narrower"])):
        if values:
            lines.append(f"    {label:<9} {'; '.join(values)}")
    return lines


@ontology_group.command("find")
@click.argument("text")
@click.option("--ontology", default=None, help="Search this loaded ontology only.")
@click.option("--limit", type=click.IntRange(min=1, max=1000), default=10, show_default=True,
              help="At most this many concepts.")
@output(lambda rows: [line for row in rows for line in _found_lines(row)]
        or ["no concept has that code, name or synonym; `tripartite ontology list` shows what is loaded"])
@pass_app
def ontology_find(app: App, text: str, ontology: str | None, limit: int) -> list[dict]:
    """Find concepts by a code (their id, source term, notation or a cross-reference such as MESH:D009203
    or just D009203), a name or a synonym; each with its codes, synonyms and neighbours in the hierarchy."""
    from tripartite.ontology.store import find_concepts

    if not text.strip():
        raise click.BadParameter("give a code, a name or a synonym to look for", param_hint="TEXT")
    return find_concepts(app.graph, text, ontology=ontology, limit=limit)


@ontology_group.command("plugins")
@output(lambda plugins: [f"{p['name']:<24} objects: {', '.join(p['object_kinds']) or '-':<14} {p['description']}"
                         for p in plugins])
def ontology_plugins() -> list[dict]:
    """The plugin ontologies shipped in plugins/."""
    from tripartite.ontology.plugins import available_plugins

    return [{"name": p.name, "description": p.description, "object_kinds": list(p.object_kinds),
             "question": p.question, "folder": str(p.folder)} for p in available_plugins()]


@ontology_group.command("remove")
@click.argument("name")
@output(lambda s: [f"removed {s['ontology']}: {s['classes']} classes, {s['concepts']} concepts, "
                   f"{s['chunk_extracts']} chunk extracts, {s['object_extracts']} object extracts, "
                   f"{s['evidence']} Evidence, {s['distributions']} score distributions; "
                   f"run `tripartite select` to rebuild the selection"]
        + ([f"the triplet graph names {s['stale_entities']} entities as its concepts: run `tripartite kg extract` "
            "(and `kg communities`) to extract them again without it"] if s["stale_entities"] else []))
@pass_app
def ontology_remove(app: App, name: str) -> dict:
    """Remove the loaded ontology NAME and everything derived from it: extract edges, Evidence,
    score distributions. The LLM's answers stay cached, so loading it again costs no calls."""
    from tripartite.ontology.store import list_ontologies, remove_ontology

    removed = remove_ontology(app.graph, name, on_wait=say)
    if removed is None:
        loaded = ", ".join(row["id"] for row in list_ontologies(app.graph)) or "none"
        raise TripartiteError(f"ontology {name!r} is not loaded (loaded: {loaded}); see `tripartite ontology list`")
    from tripartite.kg.extract import status

    return {**removed, "stale_entities": status(app.graph)["stale_concepts"]}


ontology_group.add_command(ontology_import)
ontology_group.add_command(ontology_draft)

COMMANDS = [ontology_group]
