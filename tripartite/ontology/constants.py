"""Ontology settings the command line shows in its options, kept in a module that imports
nothing, so `--help` does not load the readers."""
from __future__ import annotations

MAX_MB = 256  # the largest ontology file read by default: rdflib holds several times the file in memory
