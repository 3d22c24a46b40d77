"""A concept's distribution of w as an inline SVG: the stored histogram's bars, the alpha and
beta thresholds as lines (a candidate at or right of a line has P_c above that level), the
object's selected candidates as green marks and its best rejected ones as red marks. Drawn on
the server, so the page needs no script; every mark carries its numbers as data attributes."""
from __future__ import annotations

from html import escape

from tripartite.serving.web.distribution import Bar

WIDTH, HEIGHT, PAD, AXIS = 420, 130, 8, 18


def _span(bars: list[Bar], marks: list[float]) -> tuple[float, float]:
    values = [b.low for b in bars] + [b.high for b in bars] + marks
    low, high = min(values), max(values)
    return (low, high) if high > low else (low - 0.05, high + 0.05)


def distribution_svg(concept_id: str, bars: list[Bar], alpha_w: float | None, beta_w: float | None,
                     selected: list[dict], rejected: list[dict]) -> str:
    """selected/rejected: [{w, p, chunk_id, label}] of this object's candidates."""
    if not bars:
        return '<p class="no-distribution">No stored distribution: no object was scored on this concept.</p>'
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
                     f'<title>{b.low:.3f} to {b.high:.3f}: {b.count:,} candidates</title></rect>')
    for name, w in (("beta", beta_w), ("alpha", alpha_w)):
        if w is not None:
            parts.append(f'<line class="threshold {name}" x1="{x(w):.1f}" x2="{x(w):.1f}" y1="{PAD - 4}" '
                         f'y2="{PAD + plot_h}" data-w="{w:.5f}"><title>{name}: w &#8805; {w:.5f}</title></line>'
                         f'<text class="threshold-label {name}" x="{x(w) + 2:.1f}" y="{PAD + 6}">{name}</text>')
    for kind, items in (("rejected", rejected), ("selected", selected)):
        for m in items:
            cx = x(m["w"])
            p = "" if m.get("p") is None else f' data-p="{m["p"]:.4f}"'
            parts.append(f'<path class="candidate {kind}" d="M{cx:.1f},{PAD + plot_h + 2} l-5,9 h10 z" '
                         f'data-w="{m["w"]:.5f}"{p} data-chunk="{escape(m["chunk_id"])}">'
                         f'<title>{escape(m["label"])}</title></path>')
    axis_y = HEIGHT - 3
    parts.append(f'<text class="axis" x="{PAD}" y="{axis_y}">w {low:.2f}</text>'
                 f'<text class="axis" x="{WIDTH - PAD}" y="{axis_y}" text-anchor="end">{high:.2f}</text>')
    parts.append("</svg>")
    return "".join(parts)
