"""The constants the commands' options show or check (defaults, choices, help texts), each
from a module that loads no driver, model or numpy, so `--help` and option errors stay fast."""
from __future__ import annotations

from tripartite.evaluation.constants import SEARCH_LABELS
from tripartite.kg.constants import MIN_SIZE
from tripartite.search.constants import DEPTH, MAP_TOKENS, MIN_COMMUNITIES, MODES, QUESTION_MODES, RAG_TOP_K
from tripartite.selection.constants import SELECTIONS

__all__ = ["DEPTH", "MAP_TOKENS", "MIN_COMMUNITIES", "MIN_SIZE", "MODES", "QUESTION_MODES", "RAG_TOP_K", "SEARCH_LABELS", "SELECTIONS"]
