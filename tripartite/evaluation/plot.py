"""The comparison as a figure: concepts covered against prompt tokens, one point per object
and method, as in the paper's comparison of Tripartite prompts with RAG."""
from __future__ import annotations

from pathlib import Path

from tripartite.evaluation.measure import TRIPARTITE, Measurement, is_tripartite


def write_plot(path: Path, measurements: list[Measurement], title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")  # files only: no display on a server or in CI
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    methods = list(dict.fromkeys(m.method for m in measurements))
    rag = [m for m in methods if not is_tripartite(m)]
    # Distinct colours per RAG setting (orange is Tripartite's); squares for the min-score ones.
    palette = [c for i, c in enumerate(plt.get_cmap("tab20").colors) if i not in (2, 3)]
    fig, ax = plt.subplots(figsize=(11, 5.5), dpi=120)
    for n, method in enumerate(rag):
        rows = [m for m in measurements if m.method == method]
        ax.scatter([m.tokens for m in rows], [m.covered for m in rows], s=16, alpha=0.75, label=method,
                   color=palette[n % len(palette)], marker="s" if "score" in method else "o")
    budgets = [m for m in methods if is_tripartite(m) and m != TRIPARTITE]
    for n, method in enumerate(budgets):  # the budgeted variants: lighter, triangles
        rows = [m for m in measurements if m.method == method]
        ax.scatter([m.tokens for m in rows], [m.covered for m in rows], s=34, label=method, marker="^",
                   color=("#F6C85F", "#D55E00", "#CC79A7")[n % 3], edgecolors="#7A5200", zorder=3)
    ours = [m for m in measurements if m.method == TRIPARTITE]
    ax.scatter([m.tokens for m in ours], [m.covered for m in ours], s=42, label=TRIPARTITE, color="#E69F00",
               edgecolors="#7A5200", marker="D", zorder=4)
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda x, _: f"{x:,.0f}"))
    ax.set_xlabel("prompt tokens (cl100k_base, log scale)")
    ax.set_ylabel("object's concepts covered by the prompt")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
