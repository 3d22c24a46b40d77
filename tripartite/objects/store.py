"""The object part of the graph (cypher/objects/). Re-adding an unchanged object changes
nothing; a changed one loses what was derived from its old text."""
from __future__ import annotations

from dataclasses import asdict

from tripartite.infra.graph import Graph
from tripartite.lexical.model import IngestError
from tripartite.objects.reader import ObjectRecord


def add_objects(graph: Graph, records: list[ObjectRecord]) -> dict[str, list[str]]:
    """Store objects in one transaction; report which were added, changed or unchanged."""
    ids = [r.id for r in records]
    if len(set(ids)) != len(ids):
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        raise IngestError(f"two files give the same object id {', '.join(dupes)}; rename one of them")
    state = {row["id"]: row for row in graph.run("objects/object_state", object_ids=ids)}
    report: dict[str, list[str]] = {"added": [], "changed": [], "unchanged": []}
    changed = []
    for record in records:
        old = state.get(record.id)
        if old and old["content_hash"] == record.content_hash:
            report["unchanged"].append(record.id)
            continue
        report["changed" if old else "added"].append(record.id)
        changed.append(asdict(record))
    if changed:
        graph.run("objects/write_objects", objects=changed)
    return report


def list_objects(graph: Graph, kind: str | None = None) -> list[dict]:
    return graph.run("objects/list_objects", kind=kind)


def object_text(graph: Graph, object_id: str) -> dict | None:
    """{text, kind, question}: the object's text and its plugin's question (None if unknown)."""
    return graph.one("objects/object_text", object_id=object_id)
