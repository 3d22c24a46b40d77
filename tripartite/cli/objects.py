"""The objects under investigation: `objects add|list`."""
from __future__ import annotations

import click

from tripartite.cli.common import App, output, pass_app, rows_or_hint
from tripartite.infra.errors import TripartiteError
from tripartite.lexical.readers import discover
from tripartite.objects.reader import read_object
from tripartite.objects.store import add_objects, list_objects


@click.group("objects")
def objects_group() -> None:
    """The objects under investigation (anamneses, fault reports)."""


@objects_group.command("add")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--kind", required=True, help="The object kind, e.g. anamnesis or fault-report.")
@output(lambda report: [f"{state:<9} {object_id}" for state in ("added", "changed", "unchanged")
                        for object_id in report[state]])
@pass_app
def objects_add(app: App, paths: tuple[str, ...], kind: str) -> dict:
    """Add objects from Markdown or text files (or folders of them); one file is one object."""
    found = discover(paths)
    if found.missing:
        raise TripartiteError(f"{found.missing[0]}: no such file or folder")
    records = [read_object(path, kind) for path in found.supported]  # all read before anything is written
    return add_objects(app.graph, records)


@objects_group.command("list")
@click.option("--kind", help="Only objects of this kind.")
@output(rows_or_hint("no objects; add some with `tripartite objects add PATH --kind KIND`",
                     lambda row: f"{row['id']:<32} {row['kind']:<14} {row['characters']:>7} chars "
                                 f"{row['concepts']:>3} concepts"))
@pass_app
def objects_list(app: App, kind: str | None) -> list[dict]:
    """The objects, with how many concepts each concerns."""
    return list_objects(app.graph, kind)


COMMANDS = [objects_group]
