"""The paper's selection (section 2.2) in Cypher, cypher/selection/: run.py scores and
classifies the candidates, prompt.py lays out one object's prompt. The names below load on
first use, so that a command's --help reads selection/constants.py without the driver."""
from __future__ import annotations

from importlib import import_module

_WHERE = {"NoPrompt": "prompt", "build_prompt": "prompt", "prompt_material": "prompt", "tripartite_prompt": "prompt",
          "SelectionReport": "run", "candidates": "run", "parameters": "run", "reclassify": "run", "select": "run"}
__all__ = sorted(_WHERE)


def __getattr__(name: str):
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_WHERE[name]}"), name)
