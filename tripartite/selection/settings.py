"""Which selection settings apply: the flags given, else what `tripartite tune --store` kept
in the graph, else [selection] of tripartite.toml, else the defaults (tripartite/infra/config.py)."""
from __future__ import annotations

from dataclasses import asdict, fields, replace

from tripartite.infra.config import SelectionSettings
from tripartite.infra.graph import Graph

STORED = ("mode", "alpha", "beta", "max_tokens", "tokens_per_concept")  # what tune chooses


def effective(graph: Graph, configured: SelectionSettings, **flags) -> SelectionSettings:
    """The settings a command uses; `flags` are its options (None: not given)."""
    stored = stored_settings(graph)
    chosen = replace(configured, **{k: stored[k] for k in STORED if stored and k in stored})
    given = {f.name: flags[f.name] for f in fields(SelectionSettings) if flags.get(f.name) is not None}
    return replace(chosen, **given)


def stored_settings(graph: Graph) -> dict | None:
    """What `tune --store` kept, with how it was chosen; None when nothing is stored."""
    return graph.one("selection/tuned_settings")


def store_settings(graph: Graph, settings: SelectionSettings, chosen_by: dict) -> None:
    graph.run("selection/store_tuned_settings", settings={k: asdict(settings)[k] for k in STORED}, chosen_by=chosen_by)


def forget_settings(graph: Graph) -> bool:
    return bool(graph.run("selection/forget_tuned_settings")[0]["forgotten"])
