"""A concept's distribution of w as an inline SVG: the stored histogram's bars, the alpha and
beta thresholds as lines (a candidate at or right of a line has P_c above that level), the
object's selected candidates as green marks and its best rejected ones as red marks. Drawn on
the server, so the page needs no script; every mark carries its numbers as data attributes."""
from __future__ import annotations

import math
from html import escape

from tripartite.serving.web.distribution import Bar

WIDTH, HEIGHT, PAD, AXIS = 420, 130, 8, 18
MIN_SPAN = 0.05  # the narrowest range of w a plot shows


def _span(bars: list[Bar], marks: list[float]) -> tuple[float, float]:
    values = [b.low for b in bars] + [b.high for b in bars] + marks
    low, high = min(values), max(values)
    if high - low < MIN_SPAN:  # a few close scores: a bar as wide as the plot would mislead
        middle = (low + high) / 2
        return middle - MIN_SPAN / 2, middle + MIN_SPAN / 2
    return low, high


def ticks(low: float, high: float, wanted: int = 5) -> list[float]:
    """Round values of w between low and high, about `wanted` of them, for the axis."""
    raw = (high - low) / wanted
    step = 10 ** math.floor(math.log10(raw))
    step *= next(m for m in (1, 2, 5, 10) if raw <= m * step)
    first = math.ceil(low / step) * step
    count = int((high - first) / step + 1e-9) + 1
    return [round(first + i * step, 10) for i in range(count)]


def distribution_svg(concept_id: str, bars: list[Bar], alpha_w: float | None, beta_w: float | None,
                     selected: list[dict], rejected: list[dict]) -> str:
    """selected/rejected: [{w, p, chunk_id, label}] of this object's candidates."""
    if not bars:
        return '<p class="no-distribution">No scores stored for this concept: none of its chunks has an extract yet (`tripartite analyze`, then `tripartite select`).</p>'
    marks = [m["w"] for m in selected + rejected] + [t for t in (alpha_w, beta_w) if t is not None]
    low, high = _span(bars, marks)
    top = max(b.count for b in bars)
    plot_h = HEIGHT - AXIS - PAD

    def x(w: float) -> float:
        return PAD + (w - low) / (high - low) * (WIDTH - 2 * PAD)

    parts = [f'<svg class="distribution" data-concept="{escape(concept_id)}" viewBox="0 0 {WIDTH} {HEIGHT}" '
             f'width="{WIDTH}" height="{HEIGHT}" role="img" '
             f'aria-label="distribution of w for {escape(concept_id)}">']
    for b in bars:
        h = plot_h * b.count / top
        parts.append(f'<rect class="bar" x="{x(b.low):.1f}" y="{PAD + plot_h - h:.1f}" '
                     f'width="{max(x(b.high) - x(b.low) - 0.5, 0.5):.1f}" height="{h:.1f}" '
                     f'data-low="{b.low:.3f}" data-high="{b.high:.3f}" data-count="{b.count}">'
                     f'<title>{b.low:.3f} to {b.high:.3f}: {b.count:,} candidate{"" if b.count == 1 else "s"}</title></rect>')
    for row, (name, w) in enumerate((("alpha", alpha_w), ("beta", beta_w))):
        if w is not None:
            # labels on two rows (alpha over beta, so equal thresholds stay legible), and left of
            # the line near the right edge
            right = x(w) > WIDTH - 50
            parts.append(f'<line class="threshold {name}" x1="{x(w):.1f}" x2="{x(w):.1f}" y1="{PAD - 4}" '
                         f'y2="{PAD + plot_h}" data-w="{w:.5f}"><title>{name}: w &#8805; {w:.5f}</title></line>'
                         f'<text class="threshold-label {name}" x="{x(w) + (-3 if right else 3):.1f}" '
                         f'y="{PAD + 6 + 11 * row}" text-anchor="{"end" if right else "start"}">{name}</text>')
    for kind, items in (("rejected", rejected), ("selected", selected)):
        for m in items:
            cx = x(m["w"])
            p = "" if m.get("p") is None else f' data-p="{m["p"]:.4f}"'
            parts.append(f'<path class="candidate {kind}" d="M{cx:.1f},{PAD + plot_h + 2} l-5,9 h10 z" '
                         f'data-w="{m["w"]:.5f}"{p} data-chunk="{escape(m["chunk_id"])}">'
                         f'<title>{escape(m["label"])}</title></path>')
    for tick in ticks(low, high):
        parts.append(f'<line class="tick" x1="{x(tick):.1f}" x2="{x(tick):.1f}" y1="{PAD + plot_h}" y2="{PAD + plot_h + 3}"/>'
                     f'<text class="axis" x="{x(tick):.1f}" y="{HEIGHT - 3}" text-anchor="middle">{tick:g}</text>')
    parts.append("</svg>")
    return "".join(parts)
