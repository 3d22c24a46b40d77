"""Search settings the command line shows in its options (choices, defaults, help), kept in a
module that imports nothing, so `--help` does not load the search."""
from __future__ import annotations

MODES = ("tripartite", "rag", "local", "global")  # the ways modes.py builds an object's prompt
QUESTION_MODES = ("tripartite", "rag", "local", "global", "hybrid")  # ... and a free-text question's
HYBRID_TOKENS = 1000  # hybrid search's budget, by default
RAG_TOP_K = 5  # rag mode: the chunks closest to the object's text
DEPTH = 2      # local search: hops of relations around the entities found
MAP_TOKENS = 4000    # global search: the map step's prompt tokens, all calls together (by default)
MIN_COMMUNITIES = 4  # global search: the default level has at least this many reports, where one does
