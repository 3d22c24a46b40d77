"""What an object's page shows, read from the graph: the prompt exactly as `tripartite prompt`
builds it (so every w and P_c on the page is the one `prompt --format json` prints), the
selection store's account of every concept (its stored distribution, the thresholds, the
object's selected and best rejected candidates: cypher/selection/explain.cypher), P_c of the
candidates the page lists beside the cited ones (cypher/selection/percentiles.cypher), the
cited chunks in their sections (cypher/lexical/chunk_context.cypher) and the object's text.
The reads run side by side on the shared driver."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from tripartite.infra.errors import TripartiteError
from tripartite.serving.tools import KnowledgeTools
from tripartite.serving.web.distribution import bars

REJECTED_SHOWN = 3  # per concept: the object's best candidates the classification left out
UNCITED_SHOWN = 3  # per concept: selected candidates the budget left out, listed (all are plotted)

REASONS = {
    "alpha": "P_c > alpha: among the concept's strongest matches overall",
    "beta": "P_c > beta, and its chunk holds a candidate alpha selected",
    "floor": "the concept's best candidate for this object, kept so that no concept goes without evidence",
    "fill": "the best of the rest, taken while the budget had room",
}


class UnknownObject(TripartiteError):
    """No object has the id asked for."""


def rejection(p: float | None, alpha: float, beta: float) -> str:
    """Why a candidate the classification saw was left out."""
    if p is None:
        return "no stored distribution"
    if p <= beta:
        return f"P_c {p:.3f} <= beta {beta:g}"
    return f"P_c {p:.3f} <= alpha {alpha:g}, and no candidate alpha selected shares its chunk"


def explain_object(tools: KnowledgeTools, object_id: str) -> dict:
    """Everything the object's page shows. The prompt is built first: a missing or stale
    selection stops here, with the one line that says what to run."""
    try:
        found = tools.object_text(object_id)
    except TripartiteError as exc:
        raise UnknownObject(str(exc)) from None
    built = tools.object_prompt(object_id, "tripartite")
    details = built.details()
    graph = tools.graph
    cited = [r["chunk_id"] for r in details["references"]]
    with tools.reading(), ThreadPoolExecutor(max_workers=2) as pool:
        contexts = pool.submit(lambda: graph.run("lexical/chunk_context", chunk_ids=cited))
        accounts = graph.run("selection/explain", object_id=object_id, rejected=REJECTED_SHOWN)
        if accounts and not any(row["candidates"] for row in accounts):
            raise TripartiteError(f"object {object_id!r} has no candidates: no chunk has an embedded extract for its "
                                  "concepts; run `tripartite analyze` (it reads the documents), then `tripartite select`")
        numbers = {r["chunk_id"]: r["n"] for r in details["references"]}
        by_concept = {c["concept_id"]: {e["chunk_id"]: e for e in c["evidence"]} for c in details["concepts"]}
        concepts = [_account(row, details, numbers, by_concept.get(row["concept_id"], {})) for row in accounts]
        _name_blanket_anchors(concepts)
        _add_percentiles(graph, concepts)
        contexts = {row["chunk_id"]: row for row in contexts.result()}
    return {"object_id": object_id, "text": found["text"], "kind": found.get("kind"), "prompt": built,
            "details": details, "concepts": concepts, "contexts": contexts}


def _account(row: dict, details: dict, numbers: dict, in_prompt: dict) -> dict:
    """One concept's part of the page: its candidates with their numbers and reasons
    (`numbers`: each cited chunk's reference number; `in_prompt`: the concept's cited extracts)."""
    cid = row["concept_id"]
    paper = details["selection"] == "paper"

    def candidate(item: dict, selected: bool) -> dict:
        cited_as = in_prompt.get(item["chunk_id"])
        reason = item.get("reason")
        why = rejection(None, 0, 0) if not selected else REASONS.get(reason, reason or "")
        if selected and not cited_as:
            why += ("; the paper's selection leaves the floor out" if paper and reason == "floor"
                    else "; left out by the prompt's budget")
        return {"chunk_id": item["chunk_id"], "w": item["w"], "p": cited_as["p"] if cited_as else None,
                "reason": reason, "n": numbers.get(item["chunk_id"]) if cited_as else None, "why": why,
                "selected": selected}

    selected = [candidate(x, True) for x in row["selected"]]
    uncited = [x for x in selected if x["n"] is None]
    shown = {id(x) for x in selected if x["n"] is not None} | {id(x) for x in uncited[:UNCITED_SHOWN]}
    for x in selected:
        x["listed"] = id(x) in shown
    rejected = [dict(candidate(x, False), listed=True) for x in row["rejected"]]
    return {"concept_id": cid, "name": row["name"], "synonyms": row["synonyms"], "extract": row["extract"],
            "candidates": row["candidates"], "n": row["n"], "alpha_w": row["alpha_w"], "beta_w": row["beta_w"],
            "alpha": details["alpha"], "beta": details["beta"],
            "bars": bars(row["low"], row["below"], row["n"], row["unbinned"]),
            "selected": selected, "rejected": rejected, "unlisted": len(selected) - len(shown)}


def _name_blanket_anchors(concepts: list[dict]) -> None:
    """A beta candidate's reason names the concepts alpha selected in its chunk."""
    by_chunk: dict[str, list[str]] = {}
    for c in concepts:
        for x in c["selected"]:
            if x["reason"] == "alpha":
                by_chunk.setdefault(x["chunk_id"], []).append(c["name"])
    for c in concepts:
        for x in c["selected"]:
            anchors = [name for name in by_chunk.get(x["chunk_id"], []) if name != c["name"]]
            if x["reason"] == "beta" and anchors:
                x["why"] = x["why"].replace("a candidate alpha selected", "alpha's pick for " + ", ".join(anchors))


def _add_percentiles(graph, concepts: list[dict]) -> None:
    """P_c of the listed candidates the prompt does not cite (it gives its own), and the
    reasons that depend on it. Only the listed ones: an object can have hundreds selected."""
    wanted: dict[str, set] = {}
    for c in concepts:
        for x in c["selected"] + c["rejected"]:
            if x["listed"] and x["p"] is None and x["w"] is not None:
                wanted.setdefault(c["concept_id"], set()).add(x["w"])
    rows = graph.run("selection/percentiles", concepts=[{"concept_id": k, "ws": sorted(ws)} for k, ws in wanted.items()]) \
        if wanted else []
    found = {(r["concept_id"], r["w"]): r["p"] for r in rows}
    for c in concepts:
        for x in c["selected"] + c["rejected"]:
            if x["listed"] and x["p"] is None:
                x["p"] = found.get((c["concept_id"], x["w"]))
        for x in c["rejected"]:
            x["why"] = rejection(x["p"], c["alpha"], c["beta"])
        for x in c["selected"] + c["rejected"]:
            x["label"] = f"w {x['w']:.3f}" + (f", P_c {x['p']:.3f}" if x["p"] is not None else "")
