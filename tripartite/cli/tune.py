"""`tripartite tune`: sweep alpha, beta and the token budget on the loaded objects, and keep
the best setting in the graph for select and prompt."""
from __future__ import annotations

from dataclasses import asdict

import click

from tripartite.cli.common import FINITE, App, budget_list, number_list, output, pass_app, probability, say
from tripartite.cli.evaluation import budgets_of
from tripartite.infra.config import SelectionSettings
from tripartite.infra.errors import TripartiteError

def _tune_lines(result: dict) -> list[str]:
    from tripartite.evaluation.report import sweep_table

    if "forgotten" in result:
        configured = result["settings"]
        return [("forgot the stored setting; select and prompt use the configured one again" if result["forgotten"]
                 else "no stored setting to forget; select and prompt use the configured one")
                + f" ({configured['mode']} selection, alpha {configured['alpha']:g}, beta {configured['beta']:g})"]
    from tripartite.evaluation.tune import TunePoint

    points = [TunePoint(**p) for p in result["points"]]
    best = TunePoint(**result["best"]) if result["best"] else None
    lines = sweep_table(sorted(points, key=lambda p: -p.median_density), best)
    if best is None:
        lines.append(f"\nno setting keeps coverage (of reach) at {result['coverage_floor']:.0%} or more"
                     + ("; nothing stored (select and prompt keep their settings)" if result["store"] else "")
                     + "; lower --coverage or widen --alpha, --beta and the budgets")
    else:
        budget = {"none": "no budget"}.get(best.budget.label, f"a budget of {best.budget.label} tokens")
        lines.append(f"\nbest at coverage (of reach) >= {result['coverage_floor']:.0%}: {best.selection} selection, alpha "
                     f"{best.alpha:g}, beta {best.beta:g}, {budget} (median {best.median_tokens:,.0f} tokens, "
                     f"density {best.median_density:.2f})" + ("; stored: select and prompt use it from now on"
                                                               if result["stored"] else "; store it with --store"))
    return lines


def _forget_tuned(app: App) -> dict:
    """Drop what `tune --store` kept and classify again with the configured alpha and beta, so
    the stored classification and the settings prompts read agree."""
    from tripartite.selection import reclassify
    from tripartite.selection.settings import forget_settings

    configured = app.settings.selection
    forgotten = forget_settings(app.graph)
    if forgotten:
        reclassify(app.graph, configured.alpha, configured.beta)
    return {"forgotten": forgotten, "store": False, "settings": asdict(configured)}


@click.command("tune")
@click.option("--alpha", "alphas", default="0.8,0.9,0.95", show_default=True,
              callback=number_list(float, "--alpha", low=0, high=1))
@click.option("--beta", "betas", default="0.3,0.5", show_default=True, callback=number_list(float, "--beta", low=0, high=1))
@click.option("--max-tokens", "absolute", default="none,600,800,1000,1500", show_default=True,
              callback=budget_list("--max-tokens"), help="Absolute budgets to try ('none': no budget).")
@click.option("--tokens-per-concept", "per_concept", default="50,60,70,80,90,110", show_default=True,
              callback=budget_list("--tokens-per-concept"), help="Per-concept budgets to try.")
@click.option("--selection", "mode", type=click.Choice(["floor", "paper"]), default="floor", show_default=True)
@click.option("--coverage", "coverage_floor", type=FINITE, default=0.9, show_default=True, callback=probability("--coverage"),
              help="The coverage to keep: of what RAG top-40 reaches (lexicon judge), median over the objects.")
@click.option("--question", default=None, help="The question in every prompt (default: the plugin's).")
@click.option("--store", is_flag=True, help="Keep the best setting in the graph; select and prompt use it from then on.")
@click.option("--forget", is_flag=True, help="Forget the stored setting (no sweep): the configured one applies again.")
@output(_tune_lines, exit_code=lambda result: 1 if result["store"] and not result["stored"] else 0)
@pass_app
def tune_command(app: App, alphas: tuple, betas: tuple, absolute: tuple, per_concept: tuple, mode: str,
                 coverage_floor: float, question: str | None, store: bool, forget: bool) -> dict:
    """Sweep alpha, beta and the token budget on the loaded objects; report (and with --store
    keep) the setting of best density at a coverage floor. Needs a selected graph."""
    if forget:
        if store:
            raise click.UsageError("give --store or --forget, not both")
        return _forget_tuned(app)
    from tripartite.evaluation.judge import LexiconJudge
    from tripartite.evaluation.tune import best_point, sweep
    from tripartite.infra.embeddings import make_embedder
    from tripartite.objects.store import list_objects
    from tripartite.selection import reclassify
    from tripartite.selection.settings import effective, store_settings

    graph, settings = app.graph, app.settings
    objects = [row["id"] for row in list_objects(graph)]
    if not objects:
        raise TripartiteError("no objects to tune on; add and analyse some, then `tripartite select`")
    chosen = effective(graph, settings.selection)
    last = graph.one("selection/freshness", object_id=None)  # the classification the sweep puts back
    restore = (last["alpha"], last["beta"]) if last and last["alpha"] is not None else (chosen.alpha, chosen.beta)
    points = sweep(graph, make_embedder(settings), objects, list(alphas), list(betas),
                   list(budgets_of(absolute, per_concept)),
                   LexiconJudge.of_graph(graph), restore=restore, selection=mode,
                   question=question or chosen.question or None, on_point=lambda a, b: say(f"alpha {a:g}, beta {b:g}"))
    best = best_point(points, coverage_floor)
    if store and best is not None:
        store_settings(graph, SelectionSettings(mode=best.selection, alpha=best.alpha, beta=best.beta,
                                                max_tokens=best.max_tokens, tokens_per_concept=best.tokens_per_concept),
                       {"coverage_floor": coverage_floor, "median_coverage": best.median_coverage,
                        "median_reach": best.median_reach,
                        "median_density": best.median_density, "median_tokens": best.median_tokens,
                        "objects": len(objects)})
        reclassify(graph, best.alpha, best.beta)  # the stored classification follows the stored alpha and beta
    return {"coverage_floor": coverage_floor, "objects": len(objects), "points": [asdict(p) for p in points],
            "best": asdict(best) if best else None, "store": store, "stored": bool(store and best)}


COMMANDS = [tune_command]
