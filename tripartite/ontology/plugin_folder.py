"""Writing a plugin folder (plugin.yaml + ontology.yaml, the shape of plugins/) for a person to
curate: written to a temporary folder beside the target and moved into place in one rename,
so a failed or interrupted write leaves nothing half-done."""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import yaml

from tripartite.ontology.reader import ID, OntologyError


def check_name(name: str) -> None:
    """A new ontology's name (its folder's, and its concept ids' prefix), before any work."""
    if not ID.match(name):
        raise OntologyError(f"--name {name!r} is not a valid ontology name; use letters, digits, '_', '-' or '.'")


class _Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # libyaml when present: thousands of concepts
    """Block mappings, but short lists of plain strings on one line: synonyms read like the
    hand-written plugins."""

    def represent_list(self, data):
        flow = all(isinstance(item, str) for item in data) and sum(len(item) + 2 for item in data) <= 80
        return self.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flow)


_Dumper.add_representer(list, _Dumper.represent_list)


def _dump(value) -> str:
    return yaml.dump(value, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=100,
                     default_flow_style=False)


def plugin_manifest(name: str, description: str, question: str = "") -> str:
    return ("# Written by tripartite: curate it, then `tripartite ontology load <this folder>`.\n"
            + _dump({"name": name, "description": description, "ontology": "ontology.yaml"})
            + "# The kinds of object its prompts are for, e.g. [{id: fault-report, description: ...}].\n"
            + "object_kinds: []\n"
            + "# The question every prompt for one of its objects asks; write yours here.\n"
            + _dump({"question": question}))


def ontology_file(header: str, name: str, description: str, classes: list[dict]) -> str:
    comment = "".join(f"# {line}\n" if line else "#\n" for line in header.splitlines())
    return comment + _dump({"name": name, "version": 1, "description": description, "classes": classes})


def write_plugin_folder(out: Path, name: str, files: dict[str, str], force: bool = False) -> Path:
    """Write `files` (name -> text) as the folder out/name; refuses to replace an existing
    folder unless forced, because it may hold curation."""
    target = out / name
    if target.exists() and not force:
        raise OntologyError(f"{target} exists (it may hold your curation); pass --force to replace it "
                            f"or choose another --out")
    try:
        out.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{name}.", dir=out))
    except OSError as exc:
        raise OntologyError(f"{out}: cannot write there ({exc.strerror}); choose another --out") from None
    retired = None
    try:
        for filename, text in files.items():
            (staging / filename).write_text(text, encoding="utf-8")
        if target.exists():
            retired = Path(tempfile.mkdtemp(prefix=f".{name}.old.", dir=out))
            os.replace(target, retired / name)
        os.replace(staging, target)
    except OSError as exc:
        if retired is not None and (retired / name).exists() and not target.exists():
            os.replace(retired / name, target)  # the curated folder goes back where it was
        raise OntologyError(f"{target}: cannot be written ({exc.strerror}); nothing changed there") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        if retired is not None:
            shutil.rmtree(retired, ignore_errors=True)
    return target
