"""Where the project's non-Python files are: cypher/, plugins/, procedures/ and samples/.

In a checkout or an editable install they sit beside the package at the top of the
repository; a built wheel carries them inside the package (see pyproject.toml).
"""
from __future__ import annotations

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent.parent  # tripartite/


def _project_dir(name: str) -> Path:
    beside = PACKAGE_DIR.parent / name
    if beside.is_dir():
        return beside
    return PACKAGE_DIR / name


def cypher_dir() -> Path:
    return _project_dir("cypher")


def migrations_dir() -> Path:
    return cypher_dir() / "migrations"


def samples_dir() -> Path:
    """The project's own small sample corpus (guideline-like documents and objects)."""
    return _project_dir("samples")


def plugins_dir() -> Path:
    """Plugin ontologies: one folder per domain with plugin.yaml, ontology.yaml and prompts/."""
    return _project_dir("plugins")


def procedures_dir() -> Path:
    """The procedure plugin's Maven project (the selection's steps in Java)."""
    return _project_dir("procedures")
