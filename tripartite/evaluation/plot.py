"""The comparison as a figure: concepts covered against prompt tokens, one point per object
and method, as in the paper's comparison of Tripartite prompts with RAG."""
from __future__ import annotations

from pathlib import Path

from tripartite.evaluation.measure import TRIPARTITE, Measurement


def write_plot(path: Path, measurements: list[Measurement], title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")  # files only: no display on a server or in CI
    import matplotlib.pyplot as plt

    methods = list(dict.fromkeys(m.method for m in measurements))
    rag = [m for m in methods if m != TRIPARTITE]
    colours = plt.get_cmap("Blues")
    fig, ax = plt.subplots(figsize=(8, 5), dpi=120)
    for n, method in enumerate(rag):
        rows = [m for m in measurements if m.method == method]
        ax.scatter([m.tokens for m in rows], [m.covered for m in rows], s=18, alpha=0.7, label=method,
                   color=colours(0.35 + 0.6 * n / max(1, len(rag) - 1)), marker="o")
    ours = [m for m in measurements if m.method == TRIPARTITE]
    ax.scatter([m.tokens for m in ours], [m.covered for m in ours], s=42, label=TRIPARTITE, color="#E69F00",
               edgecolors="#7A5200", marker="D", zorder=3)
    ax.set_xscale("log")
    ax.set_xlabel("prompt tokens (cl100k_base, log scale)")
    ax.set_ylabel("object's concepts covered by the prompt")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
