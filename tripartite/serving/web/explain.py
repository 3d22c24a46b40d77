"""What an object's page shows, read from the graph: the prompt exactly as `tripartite prompt`
builds it (so every w and P_c on the page is the one `prompt --format json` prints), the
selection store's account of every concept (its stored distribution, the thresholds, the
object's selected and best rejected candidates: cypher/selection/explain.cypher), P_c of the
candidates the prompt does not cite (cypher/selection/percentiles.cypher), the cited chunks in
their sections (cypher/lexical/chunk_context.cypher) and the object's text. The reads run side
by side on the shared driver."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from tripartite.serving.tools import KnowledgeTools
from tripartite.serving.web.distribution import bars

REJECTED_SHOWN = 3  # per concept: the object's best candidates the classification left out

REASONS = {
    "alpha": "P_c > alpha: among the concept's strongest matches overall",
    "beta": "P_c > beta and it shares its chunk with a candidate selected by alpha (the Markov blanket)",
    "floor": "the concept's best candidate for this object, kept so that no concept goes without evidence",
    "fill": "the best of the rest, taken while the budget had room",
}


def rejection(p: float | None, alpha: float, beta: float) -> str:
    """Why a candidate the classification saw was left out."""
    if p is None:
        return "no stored distribution"
    if p <= beta:
        return f"P_c {p:.3f} <= beta {beta:g}"
    return f"P_c {p:.3f} <= alpha {alpha:g}, and no candidate selected by alpha shares its chunk"


def explain_object(tools: KnowledgeTools, object_id: str) -> dict:
    """Everything the object's page shows. The prompt is built first: a missing or stale
    selection stops here, with the one line that says what to run."""
    built = tools.object_prompt(object_id, "tripartite")
    details = built.details()
    graph = tools.graph
    with tools.reading(), ThreadPoolExecutor(max_workers=3) as pool:
        accounts = pool.submit(lambda: graph.run("selection/explain", object_id=object_id, rejected=REJECTED_SHOWN))
        cited = [r["chunk_id"] for r in details["references"]]
        contexts = pool.submit(lambda: graph.run("lexical/chunk_context", chunk_ids=cited))
        text = pool.submit(tools.object_text, object_id)
        accounts = accounts.result()
        percentiles = _percentiles(graph, accounts, details)
        contexts = {row["chunk_id"]: row for row in contexts.result()}
        found = text.result()
    numbers = {r["chunk_id"]: r["n"] for r in details["references"]}
    in_prompt = {(c["concept_id"], e["chunk_id"]): e for c in details["concepts"] for e in c["evidence"]}
    concepts = []
    for row in accounts:
        cid = row["concept_id"]

        def candidate(item: dict, selected: bool) -> dict:
            cited_as = in_prompt.get((cid, item["chunk_id"]))
            p = cited_as["p"] if cited_as else percentiles.get((cid, item["w"]))
            return {"chunk_id": item["chunk_id"], "w": item["w"], "p": p, "reason": item.get("reason"),
                    "n": numbers.get(item["chunk_id"]) if cited_as else None,
                    "why": (REASONS.get(item.get("reason"), item.get("reason") or "") if selected
                            else rejection(p, details["alpha"], details["beta"])),
                    "label": f"w {item['w']:.3f}" + (f", P_c {p:.3f}" if p is not None else "")}

        concepts.append({"concept_id": cid, "name": row["name"], "synonyms": row["synonyms"],
                         "extract": row["extract"], "candidates": row["candidates"], "n": row["n"],
                         "alpha_w": row["alpha_w"], "beta_w": row["beta_w"],
                         "bars": bars(row["low"], row["below"], row["n"], row["unbinned"]),
                         "selected": [candidate(x, True) for x in row["selected"]],
                         "rejected": [candidate(x, False) for x in row["rejected"]]})
    return {"object_id": object_id, "text": found["text"], "kind": found.get("kind"), "prompt": built,
            "details": details, "concepts": concepts, "contexts": contexts}


def _percentiles(graph, accounts: list[dict], details: dict) -> dict:
    """P_c of the selected and rejected candidates the prompt does not cite (it gives its own)."""
    cited = {(c["concept_id"], e["w"]) for c in details["concepts"] for e in c["evidence"]}
    wanted = {}
    for row in accounts:
        for item in row["selected"] + row["rejected"]:
            if item["w"] is not None and (row["concept_id"], item["w"]) not in cited:
                wanted.setdefault(row["concept_id"], set()).add(item["w"])
    if not wanted:
        return {}
    rows = graph.run("selection/percentiles", concepts=[{"concept_id": c, "ws": sorted(ws)} for c, ws in wanted.items()])
    return {(r["concept_id"], r["w"]): r["p"] for r in rows}
