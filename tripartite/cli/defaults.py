"""The constants the commands' options show or check (choices, help texts), each from a module
that loads no driver, model or numpy, so `--help` and option errors stay fast. The defaults a
user may set are the settings' (infra/config.py), which the options show instead."""
from __future__ import annotations

from tripartite.evaluation.constants import SEARCH_LABELS
from tripartite.search.constants import MIN_COMMUNITIES, MODES, QUESTION_MODES, RAG_TOP_K
from tripartite.selection.constants import SELECTIONS

__all__ = ["MIN_COMMUNITIES", "MODES", "QUESTION_MODES", "RAG_TOP_K", "SEARCH_LABELS", "SELECTIONS"]
