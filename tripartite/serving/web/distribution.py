"""A concept's distribution of w as bars, drawn from the histogram the selection stored
(cypher/selection/distribution.cypher): bins of width 0.001 from bin `low` up, `below[i]` the
scores under bin low + i, n in all, and the scores an incremental plugin run left `unbinned`.
Nothing is scored again. The bars are those bins merged, so a bar's count is exact."""
from __future__ import annotations

import math
from dataclasses import dataclass

BIN_WIDTH = 0.001  # distribution.cypher's bins: bin(w) = floor(1000 w)


@dataclass(frozen=True)
class Bar:
    low: float  # the bar covers low <= w < high
    high: float
    count: int


def bin_counts(low: int | None, below: list[int], n: int | None, unbinned: list[float]) -> dict[int, int]:
    """Scores per bin number, the unbinned ones added to their bins."""
    counts: dict[int, int] = {}
    binned = (n or 0) - len(unbinned)
    for i, under in enumerate(below):
        upto = below[i + 1] if i + 1 < len(below) else binned
        if upto > under:
            counts[low + i] = upto - under
    for w in unbinned:
        key = math.floor(1000 * w)
        counts[key] = counts.get(key, 0) + 1
    return counts


def bars(low: int | None, below: list[int], n: int | None, unbinned: list[float], wanted: int = 40) -> list[Bar]:
    """About `wanted` bars of equal width over the stored scores' range (empty list: no scores)."""
    counts = bin_counts(low, below, n, unbinned)
    if not counts:
        return []
    first, last = min(counts), max(counts)
    per_bar = max(1, math.ceil((last - first + 1) / wanted))
    merged: dict[int, int] = {}
    for key, count in counts.items():
        start = first + (key - first) // per_bar * per_bar
        merged[start] = merged.get(start, 0) + count
    return [Bar(start * BIN_WIDTH, (start + per_bar) * BIN_WIDTH, merged.get(start, 0))
            for start in range(first, last + 1, per_bar)]
