"""The objects under investigation: `objects add|list|remove`. Imports of the pipeline stay
inside the commands, so --help stays fast."""
from __future__ import annotations

import click

from tripartite.cli.common import App, output, pass_app, rows_or_hint, say
from tripartite.infra.errors import TripartiteError


@click.group("objects")
def objects_group() -> None:
    """The objects under investigation (anamneses, fault reports)."""


def _added_lines(report: dict) -> list[str]:
    from tripartite.lexical.readers import hidden_line, irregular_line

    lines = [f"{state:<9} {object_id}" for state in ("added", "changed", "unchanged") for object_id in report[state]]
    lines += [f"moved     {item['id']} (the same text, now read from {item['path']}; it was {item['from']})"
              for item in report["moved"]]
    lines += [f"note: {item['path']} is stored as {item['id']}: the id {item['wanted']} belongs to {item['taken_by']} "
              "(--replace replaces that object instead)" for item in report["renamed"]]
    for path in report["skipped"]:
        click.echo(f"skipped   {path}: not a Markdown or text file", err=True)
    for note in (hidden_line(report["hidden"]), irregular_line(report["irregular"])):
        if note:
            click.echo(note, err=True)
    return lines


@objects_group.command("add")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--kind", required=True, help="The object kind, e.g. anamnesis or fault-report.")
@click.option("--replace", is_flag=True,
              help="A file whose id belongs to an object from another source replaces that object "
                   "(default: it is stored under its id with a short hash added).")
@click.option("--max-tokens", type=click.IntRange(min=1), default=None,
              help="Refuse an object longer than this many tokens (default 32,000): its whole text goes into "
                   "each LLM prompt that analyses it.")
@output(_added_lines)
@pass_app
def objects_add(app: App, paths: tuple[str, ...], kind: str, replace: bool, max_tokens: int | None) -> dict:
    """Add objects from Markdown or text files (or folders of them); one file is one object."""
    from tripartite.lexical.readers import discover, refuse_named
    from tripartite.objects.reader import SUPPORTED as OBJECT_FILES
    from tripartite.objects.reader import MAX_TOKENS, object_kind, read_object
    from tripartite.objects.store import add_objects

    kind = object_kind(kind)
    found = discover(paths, kinds=OBJECT_FILES)
    if found.missing:
        raise TripartiteError(f"{found.missing[0]}: no such file or folder")
    refuse_named(found, paths, "objects are read from Markdown or text", OBJECT_FILES)
    if not found.supported:
        raise TripartiteError(f"{', '.join(paths)}: no Markdown or text files found")
    records = [read_object(path, kind, max_tokens or MAX_TOKENS)  # all read before anything is written
               for path in found.supported]
    return {**add_objects(app.graph, records, replace), "skipped": [str(p) for p in found.unsupported],
            "hidden": [str(p) for p in found.hidden], "irregular": [str(p) for p in found.irregular]}


def _object_line(row: dict) -> str:
    return (f"{row['id']:<32} {row['kind']:<14} {row['characters']:>7} chars {row['concepts']:>3} concepts"
            + (f"  analysis failed: {row['analysis_error']}" if row['analysis_error'] else ""))


def _listed_lines(rows: list[dict]) -> list[str]:
    kind = click.get_current_context().params.get("kind")
    empty = (f"no objects of kind {kind!r} (`tripartite objects list` shows every kind)" if kind
             else "no objects; add some with `tripartite objects add PATH --kind KIND`")
    return rows_or_hint(empty, _object_line)(rows)


@objects_group.command("list")
@click.option("--kind", help="Only objects of this kind.")
@output(_listed_lines)
@pass_app
def objects_list(app: App, kind: str | None) -> list[dict]:
    """The objects, with how many concepts each concerns."""
    from tripartite.objects.store import list_objects

    return list_objects(app.graph, kind)


@objects_group.command("remove")
@click.argument("object_ids", nargs=-1, required=True)
@output(lambda removed: [f"removed   {row['id']} ({row['candidates']} candidates)" for row in removed["removed"]]
        + (["then run `tripartite select`: the score distributions still count what was removed"]
           if removed["removed"] else []))
@pass_app
def objects_remove(app: App, object_ids: tuple[str, ...]) -> dict:
    """Remove objects with their extracts and Evidence."""
    from tripartite.objects.store import list_objects
    from tripartite.selection.run import remove_objects

    known = {row["id"] for row in list_objects(app.graph)}
    missing = [o for o in object_ids if o not in known]
    if missing:
        raise TripartiteError(f"no object with id {missing[0]!r}; see `tripartite objects list`")
    return {"removed": remove_objects(app.graph, list(dict.fromkeys(object_ids)), on_wait=say)}


COMMANDS = [objects_group]
