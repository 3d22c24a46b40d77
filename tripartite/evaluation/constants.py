"""Evaluation names the command line checks its options against, kept in a module that imports
nothing, so `--help` and option errors do not load the measures."""
from __future__ import annotations

SEARCH_LABELS = {"local": "Local search", "global": "Global search"}  # search mode: its method's label
