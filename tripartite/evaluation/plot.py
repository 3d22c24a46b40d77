"""The comparison as a figure: per method, median coverage against median prompt tokens (one
labelled point per method, tokens on a log scale), with every object's own point faint behind."""
from __future__ import annotations

from pathlib import Path

from tripartite.evaluation.measure import Measurement, Summary, is_rag, is_search, is_tripartite

SEARCH_STYLE = {"Local search": ("#009E73", "h"), "Global search": ("#8E44AD", "p")}  # colour, marker


def write_plot(path: Path, measurements: list[Measurement], summaries: list[Summary], title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")  # files only: no display on a server or in CI
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    fig, ax = plt.subplots(figsize=(10, 6), dpi=120)
    rag = [s for s in summaries if is_rag(s.method)]
    ours = [s for s in summaries if is_tripartite(s.method)]
    rag_colour, our_colour = "#4C72B0", "#D55E00"
    for s in summaries:  # the objects, faint: the spread behind each median
        rows = [m for m in measurements if m.method == s.method]
        colour = (our_colour if is_tripartite(s.method) else
                  SEARCH_STYLE.get(s.method, ("#555555", "o"))[0] if is_search(s.method) else rag_colour)
        ax.scatter([m.tokens for m in rows], [100 * m.coverage for m in rows], s=9, alpha=0.12, color=colour,
                   edgecolors="none", zorder=1)
    top_k = [s for s in rag if s.method.startswith("RAG top-")]
    if len(top_k) > 1:  # the RAG top-k settings as one curve: what more chunks buy
        ax.plot([s.median_tokens for s in top_k], [100 * s.median_coverage for s in top_k], color=rag_colour,
                alpha=0.6, linewidth=1.2, zorder=2)
    for s in rag:
        ax.scatter([s.median_tokens], [100 * s.median_coverage], s=46, color=rag_colour,
                   marker="s" if "score" in s.method or "budget" in s.method else "o", zorder=3)
        below = s.method.startswith("RAG top-")  # the curve's labels below it, the others above
        ax.annotate(s.method.replace("RAG ", ""), (s.median_tokens, 100 * s.median_coverage), fontsize=7,
                    xytext=(5, -9 if below else 5), textcoords="offset points", color=rag_colour)
    markers, shades = "D^vP*Xph", ("#D55E00", "#E69F00", "#A63D00", "#F0A060", "#7A2E00", "#CC79A7")
    for n, s in enumerate(ours):  # each variant its own marker, named in the legend
        ax.scatter([s.median_tokens], [100 * s.median_coverage], s=110 if n == 0 else 80,
                   color=shades[n % len(shades)], marker=markers[n % len(markers)], edgecolors="#3A1500",
                   linewidths=0.8, zorder=4 + (n == 0), label=f"{s.method} (median)")
    for s in (s for s in summaries if is_search(s.method)):  # DB-GPT's GraphRAG prompts
        colour, marker = SEARCH_STYLE.get(s.method, ("#555555", "o"))
        ax.scatter([s.median_tokens], [100 * s.median_coverage], s=90, color=colour, marker=marker,
                   edgecolors="#1A1A1A", linewidths=0.6, zorder=4, label=f"{s.method} (median, final prompt)")
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda x, _: f"{x:,.0f}"))
    ax.xaxis.set_minor_formatter(matplotlib.ticker.FuncFormatter(lambda x, _: f"{x:,.0f}" if str(round(x))[0] in "25" else ""))
    ax.set_xlabel("prompt tokens (cl100k_base, log scale); large markers: medians over the objects")
    ax.set_ylabel("coverage of the object's concepts, lexicon judge (%)")
    ax.set_ylim(-3, 106)
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", alpha=0.25)
    ax.scatter([], [], color=rag_colour, marker="o", label="vector RAG (median; squares: score thresholds, same budget)")
    ax.scatter([], [], color="grey", alpha=0.3, s=9, label="one object (faint: orange Tripartite, blue RAG, green local, purple global)")
    ax.legend(fontsize=7.5, loc="lower right", framealpha=0.9)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


MODE_STYLE = {"tripartite": ("#D55E00", "D"), "rag": ("#4C72B0", "o"), "hybrid": ("#CC79A7", "*"),
              "local": ("#009E73", "h"), "global": ("#8E44AD", "p")}


def write_question_plot(path: Path, summaries: list, title: str) -> None:
    """Per mode, mean recall against median prompt tokens, one point per budget joined by a line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    fig, ax = plt.subplots(figsize=(9, 5.5), dpi=120)
    for mode in dict.fromkeys(s.mode for s in summaries):
        rows = sorted((s for s in summaries if s.mode == mode), key=lambda s: s.median_tokens)
        colour, marker = MODE_STYLE.get(mode, ("#555555", "o"))
        ax.plot([s.median_tokens for s in rows], [100 * s.recall for s in rows], color=colour, marker=marker,
                markersize=8, linewidth=1.4, label=mode)
        for s in rows:
            ax.annotate(f"{s.budget:,}", (s.median_tokens, 100 * s.recall), fontsize=7, xytext=(4, -10),
                        textcoords="offset points", color=colour)
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda x, _: f"{x:,.0f}"))
    ax.set_xlabel("median prompt tokens (cl100k_base, log scale); labels: the budget asked for")
    ax.set_ylabel("answer recall, mean over the questions (%)")
    ax.set_ylim(-3, 106)
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=8, loc="lower right", framealpha=0.9)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
