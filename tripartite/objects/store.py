"""The object part of the graph (cypher/objects/). Re-adding an unchanged object changes
nothing; a changed one loses what was derived from its old text."""
from __future__ import annotations

from dataclasses import asdict
from dataclasses import replace as replace_field

from tripartite.infra.graph import Graph
from tripartite.infra.secrets import bounded
from tripartite.lexical.ids import resolve_ids
from tripartite.lexical.model import IngestError
from tripartite.objects.reader import ObjectRecord


def add_objects(graph: Graph, records: list[ObjectRecord], replace: bool = False) -> dict[str, list]:
    """Store objects in one transaction; report which were added, changed, unchanged or moved
    (the same text from another path: it keeps its analysis and selection), and which got
    another id because theirs belongs to another source (see lexical/ids.py)."""
    ids = [r.id for r in records]
    if len(set(ids)) != len(ids):
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        raise IngestError(f"two files give the same object id {', '.join(dupes)}; rename one of them")
    by_path = {row["path"]: row["id"] for row in graph.run("objects/objects_by_path", paths=[r.path for r in records])}
    by_id = {row["id"]: row for row in graph.run("objects/object_state", object_ids=ids)}
    hashes = {r.path: r.content_hash for r in records}
    resolution = resolve_ids({r.path: r.id for r in records}, by_path, by_id, hashes.__getitem__, replace)
    for path, (stored, wanted) in resolution.stuck.items():
        raise IngestError(f"{path} is stored as object {stored} (another file held {wanted} when it came); "
                          f"--replace does not rename a stored object: `tripartite objects remove {stored}`, then "
                          "add it again with --replace")
    records = [replace_field(r, id=resolution.ids[r.path]) for r in records]
    ids = [r.id for r in records]
    state = {row["id"]: row for row in graph.run("objects/object_state", object_ids=ids)}
    report: dict[str, list] = {"added": [], "changed": [], "unchanged": [], "moved": [],
                               "renamed": [{"path": path, "id": resolution.ids[path], "wanted": wanted,
                                            "taken_by": by_id[wanted]["path"]}
                                           for path, wanted in resolution.renamed.items()]}
    changed = []
    for record in records:
        old = state.get(record.id)
        if old and old["content_hash"] == record.content_hash and old["path"] == record.path:
            report["unchanged"].append(record.id)
            continue
        if old and old["content_hash"] == record.content_hash and old["kind"] == record.kind:
            report["moved"].append({"id": record.id, "path": record.path, "from": old["path"]})
        else:
            report["changed" if old else "added"].append(record.id)
        changed.append(asdict(record))
    if changed:
        graph.run("objects/write_objects", objects=changed)
    return report


def list_objects(graph: Graph, kind: str | None = None) -> list[dict]:
    rows = graph.run("objects/list_objects", kind=kind)
    for row in rows:  # an error stored by an older version may hold what an endpoint echoed
        if row.get("analysis_error"):
            row["analysis_error"] = bounded(row["analysis_error"])
    return rows


def stored_ids(report: dict) -> list[str]:
    """Every object an `add_objects` report names as now in the graph."""
    return report["added"] + report["changed"] + report["unchanged"] + [m["id"] for m in report["moved"]]


def object_text(graph: Graph, object_id: str) -> dict | None:
    """{text, kind, question}: the object's text and its plugin's question (None if unknown)."""
    return graph.one("objects/object_text", object_id=object_id)
