"""`tripartite ontology import`: one branch of a published ontology (OBO, OWL, SKOS, CSV) as a
plugin folder to curate and load. Everything is read and checked before anything is written."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from tripartite.ontology.branch import Branch, labelled, local_key, take_branch
from tripartite.ontology.plugin_folder import check_name, ontology_file, plugin_manifest, write_plugin_folder
from tripartite.ontology.constants import MAX_MB
from tripartite.ontology.sources import read_terms


@dataclass
class Imported:
    folder: Path
    branch: Branch
    terms_read: int


def import_branch(path: Path, root: str, name: str, out: Path, depth: int | None = None, class_level: int = 1,
                  language: str = "en", force: bool = False, max_mb: float = MAX_MB,
                  classes: list[str] | None = None, strict: bool = False) -> Imported:
    check_name(name)
    terms = read_terms(path, language, max_mb, strict=strict)
    branch = take_branch(terms, root, str(path), class_level=class_level, depth=depth, classes=classes)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    root_label = labelled(branch.root)
    description = f"{branch.root.name or local_key(branch.root.id)}: imported from {path.name}"
    header = (f"Imported by `tripartite ontology import` on {date.today().isoformat()} from {path.name} "
              f"(sha256 {digest}...),\nthe branch under {root_label}: {len(branch.classes)} classes, "
              f"{branch.concept_count} concepts.\n"
              f"`synonyms` are the exact synonyms, `abbreviations` those typed so, `related` the related, broad\n"
              f"and narrow ones; `source` is the term's id there, `xrefs` its codes elsewhere. Every term under\n"
              f"the root is a concept; each joins the class of its nearest class term (fewest is_a steps, ties\n"
              f"to the smaller id).\nCurate freely: rename, merge, drop concepts, "
              f"add synonyms; then `tripartite ontology load <this folder>`.")
    if branch.problems:
        header += "\n\nReported while importing:\n" + "\n".join(branch.problems)
    files = {"plugin.yaml": plugin_manifest(name, description),
             "ontology.yaml": ontology_file(header, name, description, branch.classes)}
    folder = write_plugin_folder(out, name, files, force=force)
    return Imported(folder, branch, len(terms))
