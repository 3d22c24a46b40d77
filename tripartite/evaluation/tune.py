"""Hyperparameter learning, the paper's future work: sweep alpha, beta and the token budget on
the loaded objects, score every setting with the lexicon judge, and pick the one with the best
density among those that keep coverage at a floor the user gives. Each (alpha, beta) is a
reclassification of the same scores; the classification is put back afterwards."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from tripartite.evaluation.judge import LexiconJudge
from tripartite.evaluation.measure import Variant, measure_tripartite, scorer_for, summarize
from tripartite.infra.graph import Graph
from tripartite.selection import reclassify


@dataclass(frozen=True)
class Budget:
    """A prompt budget: absolute (max_tokens), per concept of the object, or none."""
    max_tokens: int | None = None
    tokens_per_concept: int | None = None

    @property
    def label(self) -> str:
        if self.max_tokens is not None:
            return f"{self.max_tokens:,}"
        return "none" if self.tokens_per_concept is None else f"{self.tokens_per_concept} per concept"


@dataclass(frozen=True)
class TunePoint:
    selection: str
    alpha: float
    beta: float
    max_tokens: int | None
    tokens_per_concept: int | None
    median_tokens: float
    median_coverage: float
    median_reach: float | None
    median_density: float

    @property
    def budget(self) -> Budget:
        return Budget(self.max_tokens, self.tokens_per_concept)

    @property
    def coverage_measure(self) -> float:
        """Coverage of what RAG top-40 reaches, where anything is reachable; else of all."""
        return self.median_reach if self.median_reach is not None else self.median_coverage


def sweep(graph: Graph, embedder, object_ids: list[str], alphas: list[float], betas: list[float],
          budgets: list[Budget], judge: LexiconJudge, restore: tuple[float, float], selection: str = "floor",
          question: str | None = None, on_point: Callable[[float, float], None] = lambda alpha, beta: None
          ) -> list[TunePoint]:
    """Every (alpha, beta, budget) of the grid with beta < alpha (a blanket at or above alpha
    adds nothing); the classification is put back to `restore` afterwards."""
    scorers = {o: scorer_for(graph, embedder, o, judge, analysed=False)[0] for o in object_ids}
    points = []
    try:
        for alpha in alphas:
            for beta in (b for b in betas if b < alpha):
                on_point(alpha, beta)
                reclassify(graph, alpha, beta)
                for budget in budgets:
                    variant = Variant(selection, budget.max_tokens, tokens_per_concept=budget.tokens_per_concept)
                    rows = [measure_tripartite(graph, scorers[o], variant, question) for o in object_ids]
                    [s] = summarize(rows)
                    points.append(TunePoint(selection, alpha, beta, budget.max_tokens, budget.tokens_per_concept,
                                            s.median_tokens, s.median_coverage, s.median_reach, s.median_density))
    finally:
        reclassify(graph, *restore)
    return points


def best_point(points: list[TunePoint], coverage_floor: float) -> TunePoint | None:
    """The point of best median density whose coverage is at least the floor (ties: fewer tokens)."""
    able = [p for p in points if p.coverage_measure >= coverage_floor]
    return max(able, key=lambda p: (p.median_density, -p.median_tokens), default=None)
