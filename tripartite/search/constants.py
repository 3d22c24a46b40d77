"""Search settings the command line shows in its options (choices, defaults, help), kept in a
module that imports no search code, so `--help` does not load the search. The defaults a user
may set are [search]'s (infra/config.py's SearchSettings); these names are their built-in values."""
from __future__ import annotations

from tripartite.infra.config import SearchSettings

MODES = ("tripartite", "rag", "local", "global")  # the ways modes.py builds an object's prompt
QUESTION_MODES = ("tripartite", "rag", "local", "global", "hybrid")  # ... and a free-text question's
HYBRID_TOKENS = SearchSettings.hybrid_tokens  # hybrid search's budget, by default
RAG_TOP_K = 5  # rag mode: the chunks closest to the object's text
DEPTH = SearchSettings.depth  # local search: hops of relations around the entities found
MAP_TOKENS = SearchSettings.map_tokens  # global search: the map step's prompt tokens, all calls together
MIN_COMMUNITIES = 4  # global search: the default level has at least this many reports, where one does
