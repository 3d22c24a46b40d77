"""Triplet-graph settings the command line shows in its options, kept in a module that imports
nothing, so `--help` does not load the communities' code."""
from __future__ import annotations

MIN_SIZE = 3  # smaller communities get no report
