"""How alpha and beta trade prompt length for coverage: the Tripartite prompts of every
object under a grid of (alpha, beta), each point a reclassification of the same scores."""
from __future__ import annotations

from dataclasses import dataclass

from tripartite.evaluation.measure import summarize, tripartite_measurement
from tripartite.infra.graph import Graph
from tripartite.selection import reclassify


@dataclass(frozen=True)
class SweepPoint:
    alpha: float
    beta: float
    median_tokens: float
    median_covered: float
    median_coverage: float
    median_density: float


def sweep(graph: Graph, object_ids: list[str], alphas: list[float], betas: list[float], question: str | None,
          restore: tuple[float, float], on_point=lambda alpha, beta: None) -> list[SweepPoint]:
    """Every (alpha, beta) of the grid with beta < alpha (a blanket at or above alpha adds
    nothing); the classification is put back to `restore` afterwards."""
    points = []
    try:
        for alpha in alphas:
            for beta in (b for b in betas if b < alpha):
                on_point(alpha, beta)
                reclassify(graph, alpha, beta)
                rows = [tripartite_measurement(graph, o, question) for o in object_ids]
                [ours] = summarize(rows)
                points.append(SweepPoint(alpha, beta, ours.median_tokens, ours.median_covered, ours.median_coverage,
                                         ours.median_density))
    finally:
        reclassify(graph, *restore)
    return points
