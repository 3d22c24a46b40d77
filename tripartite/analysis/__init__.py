"""The concept-anchored pre-analysis (cypher/analysis/): e(c,t) on MENTIONED_IN and e(o,c)
on CONCERNS. `open_analyzer` is the one way to build an Analyzer from the settings."""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from tripartite.analysis.analyzer import Analyzer, Plan, dry_run_figures
from tripartite.analysis.extractive import ExtractiveProvider
from tripartite.infra.config import Settings
from tripartite.infra.embeddings import local_embedder
from tripartite.infra.graph import Graph
from tripartite.infra.llm import open_runner

__all__ = ["Analyzer", "Plan", "dry_run_figures", "open_analyzer"]


@contextmanager
def open_analyzer(settings: Settings, graph: Graph, offline: bool = False, concurrency: int | None = None,
                  prefilter: bool = True, ontology: str | None = None) -> Iterator[Analyzer]:
    """An Analyzer over the loaded concepts (or one ontology's): the configured LLM, or the
    offline extractive provider; the answer cache is closed at the end of the block."""
    embedder = local_embedder(settings)  # extracts and concepts are compared in its space, whatever embeds chunks
    with open_runner(settings, ExtractiveProvider(embedder), offline=offline, concurrency=concurrency) as runner:
        yield Analyzer(graph, embedder, runner, prefilter=prefilter, ontology=ontology,
                       prefilter_similarity=settings.analysis.prefilter_similarity)
