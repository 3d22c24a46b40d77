"""Ids of sources (documents, and objects too): readable, unique and stable.

A file's id is its name, lowercased, with Unicode letters kept (`日本.md` -> `日本`, not a
bare `document`). Same-named files in one run get as many of their folders as prefix as it
takes to tell them apart. Against the graph, a source keeps the id it was stored under (found
by its path); a new source whose id belongs to another source gets a short hash of its path
as suffix, so nothing is replaced without a word. A file with the same content as the
source that holds the id counts as that source, moved; `--replace` takes the id over.
"""
from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

_NOT_WORD = re.compile(r"[\W_]+", re.UNICODE)


def slugify(text: str) -> str:
    slug = _NOT_WORD.sub("-", unicodedata.normalize("NFC", text).lower()).strip("-")
    return slug or "document"


def short_hash(*parts: str, length: int = 12) -> str:
    digest = hashlib.sha1("\x1f".join(parts).encode("utf-8")).hexdigest()
    return digest[:length]


def readable_ids(files: list[Path]) -> dict[Path, str]:
    """A readable id per file from its name; same-named files get as many of their parent
    folders as prefix as it takes to tell them apart (then a path hash as a last resort)."""
    by_stem: dict[str, list[Path]] = {}
    for file in files:
        by_stem.setdefault(slugify(file.stem), []).append(file)
    ids: dict[Path, str] = {}
    for stem, group in by_stem.items():
        if len(group) == 1:
            ids[group[0]] = stem
            continue
        for depth in range(1, 4):
            candidates = {f: "-".join([*(slugify(p) for p in f.parent.parts[-depth:]), stem]) for f in group}
            if len(set(candidates.values())) == len(group):
                break
        else:
            candidates = {f: f"{stem}-{short_hash(str(f), length=8)}" for f in group}
        ids.update(candidates)
    return ids


@dataclass
class Resolution:
    ids: dict[str, str] = field(default_factory=dict)          # path -> id
    renamed: dict[str, str] = field(default_factory=dict)      # path -> the id another source holds
    taken_over: dict[str, str] = field(default_factory=dict)   # path -> the previous source of its id
    # path -> (the suffixed id it is stored under, the readable id `replace` asked for): an id
    # stays with its source, so the stored one must be removed before the source can take over.
    stuck: dict[str, tuple[str, str]] = field(default_factory=dict)


def resolve_ids(candidates: dict[str, str], by_path: dict[str, str], by_id: dict[str, dict],
                content_hash, replace: bool = False) -> Resolution:
    """Final ids for `candidates` (path -> readable id), given what the graph holds: the id
    stored for a path (`by_path`), and the source stored for an id (`by_id`: id -> {path,
    content_hash}). `content_hash(path)` is asked only on a collision."""
    result = Resolution()
    for path, candidate in candidates.items():
        if path in by_path:                       # the same source: it keeps its id
            result.ids[path] = by_path[path]
            if replace and by_path[path] != candidate:
                result.stuck[path] = (by_path[path], candidate)
            continue
        holder = by_id.get(candidate)
        if holder is None or holder["path"] in (None, path):
            result.ids[path] = candidate
        elif replace or (holder.get("content_hash") and holder["content_hash"] == content_hash(path)):
            result.ids[path] = candidate          # taken over: asked for, or the same file moved
            result.taken_over[path] = holder["path"]
        else:
            result.ids[path] = f"{candidate}-{short_hash(path, length=8)}"
            result.renamed[path] = candidate
    return result
