"""Tripartite for a free-text question: the question is read like an object (one extract per
concept it concerns, through the analysis's prompt and the answer cache, so asking again costs
nothing), each extract is embedded, and every chunk extract of its concepts becomes a
candidate scored and selected against the stored concept distributions
(cypher/search/question_evidence.cypher). Nothing is stored: the question never becomes an
object. A question the reading finds no concept in gets the concepts nearest to it in meaning as
stand-ins (NEAREST_CONCEPTS, above NEAREST_FLOOR), the question their extract. The prompt has
the object prompt's layout, the question's extracts in the object's
place, fitted to a token budget: over it, the weakest extracts go first (each concept keeps
its best while another has two); under it, the room left is filled with each concept's next
best candidates in turn (reason "fill"), so a budget buys what it says."""
from __future__ import annotations

import hashlib

from tripartite.infra.errors import TripartiteError
from tripartite.infra.graph import Graph
from tripartite.search.gaps import analysis_gap, distribution_gap
from tripartite.selection.prompt import REFERENCES_CLAUSE, SELECTIONS, add_percentiles, build_prompt

PREAMBLE = "What the question asks about each concept it concerns" + REFERENCES_CLAUSE


def question_id(question: str) -> str:
    """The id a question is read under: the same question, the same id (and cache entry)."""
    return "question-" + hashlib.sha1(question.strip().encode("utf-8")).hexdigest()[:12]


def thresholds(graph: Graph, alpha: float, beta: float) -> tuple[float, float]:
    """The alpha and beta of the stored selection (its thresholds are what is stored), else
    the settings'."""
    row = graph.one("selection/freshness", object_id=None)
    return (row["alpha"] if row and row["alpha"] is not None else alpha,
            row["beta"] if row and row["beta"] is not None else beta)


FILL_PER_CONCEPT = 20  # a budget is filled from at most this many candidates of each concept
# A question that names none of the concepts (in words the reader recognises) still asks about
# something: the concepts nearest to it in meaning stand in, this many, the question their extract,
# unless even the nearest is farther than the floor (the question is about something else: with
# the default embedder, off-topic questions were 0.07-0.15 from the nearest concept, the guideline
# and servo questions 0.14-0.65). Tripartite's recall at 1,000 tokens rose on every set with it
# (docs/search.md).
NEAREST_CONCEPTS = 2
NEAREST_FLOOR = 0.2


def question_rows(graph: Graph, extracts: dict[str, str], vectors, alpha: float, beta: float,
                  selection: str) -> tuple[list[dict], list[tuple[str, dict]]]:
    """Each concept of the question with its selected evidence, best first (see the script),
    and the unselected candidates a budget may fill with: (concept id, extract), each
    concept's next best in turn."""
    concepts = [{"concept_id": cid, "vector": v.tolist()} for cid, v in zip(extracts, vectors)]
    rows: dict[str, dict] = {}
    spare = []
    for r in graph.run("search/question_evidence", concepts=concepts, alpha=alpha, beta=beta, selection=selection,
                       per_concept=FILL_PER_CONCEPT):
        row = rows.setdefault(r["concept_id"], {"concept_id": r["concept_id"], "name": r["name"],
                                                "summary": extracts[r["concept_id"]], "evidence": [],
                                                "stored": r["stored"]})
        extract = {k: r[k] for k in ("chunk_id", "w", "reason", "rank", "text", "document", "document_id",
                                     "section_path", "index", "own_p")}
        if r["reason"] is None:
            spare.append((r["concept_id"], {**extract, "reason": "fill"}))
        else:
            row["evidence"].append(extract)
    spare.sort(key=lambda x: (x[1]["rank"], -x[1]["w"], x[0]))
    return sorted(rows.values(), key=lambda row: row["name"]), spare


def _kept(rows: list[dict], dropped: set[tuple[str, str]]) -> list[dict]:
    """The rows without the dropped extracts, each concept's evidence in reading order."""
    kept = []
    for row in rows:
        evidence = [e for e in row["evidence"] if (row["concept_id"], e["chunk_id"]) not in dropped]
        kept.append({**row, "evidence": sorted(evidence, key=lambda e: (e["document_id"] or "", e["index"] or 0))})
    return kept


def drop_order(rows: list[dict]) -> list[tuple[str, str]]:
    """Which extracts a budget drops first: every one that is not its concept's best, weakest
    first, then the concepts' best ones, weakest first (prompt_material.cypher's order)."""
    items = [(e["rank"] == 0, e["w"], row["concept_id"], e["chunk_id"]) for row in rows for e in row["evidence"]]
    return [(cid, chunk) for _, _, cid, chunk in sorted(items, key=lambda x: (x[0], x[1], x[3], x[2]))]


def fill(rows: list[dict], spare: list[tuple[str, dict]], layout, max_tokens: int,
         best: dict) -> tuple[dict, list[dict]]:
    """Add spare candidates, each concept's next best in turn, while the prompt stays within
    the budget (a binary search over how many); `best` is the rows' own prompt, which fits."""
    def grown(n: int) -> list[dict]:
        extra: dict[str, list[dict]] = {}
        for cid, extract in spare[:n]:
            extra.setdefault(cid, []).append(extract)
        return [{**row, "evidence": row["evidence"] + extra.get(row["concept_id"], [])} for row in rows]

    low, high = 0, len(spare)
    while low < high:
        middle = (low + high + 1) // 2
        built = layout(_kept(grown(middle), set()))
        if built["tokens"] <= max_tokens:
            low, best = middle, built
        else:
            high = middle - 1
    return best, grown(low)


def fit(rows: list[dict], layout, max_tokens: int | None, spare: list | None = None) -> tuple[dict, int]:
    """The laid-out prompt with the fewest drops that fits the budget (a binary search over the
    drop order), and how many were dropped; a prompt under the budget is filled from `spare`."""
    if max_tokens is None:
        return layout(_kept(rows, set())), 0
    whole = layout(_kept(rows, set()))
    if whole["tokens"] <= max_tokens:
        return (fill(rows, spare, layout, max_tokens, whole)[0] if spare else whole), 0
    order = drop_order(rows)
    low, high = 0, len(order)  # the answer lies in [low, high]
    best = None
    while low < high:
        middle = (low + high) // 2
        built = layout(_kept(rows, set(order[:middle])))
        if built["tokens"] <= max_tokens:
            high, best = middle, built
        else:
            low = middle + 1
    return best or layout(_kept(rows, set(order[:low]))), low


def tripartite_question_prompt(graph: Graph, question: str, analyzer, alpha: float, beta: float,
                               max_tokens: int | None = None, selection: str = "floor", dry_run: bool = False) -> dict:
    """The Tripartite prompt for a question, in search's shape: {mode, question, tokens,
    total_tokens, prompt, references, concepts, material, note}. A dry run with an LLM whose
    reading of the question is not cached estimates: that reading's prompt, and the budget."""
    if selection not in SELECTIONS:
        raise TripartiteError(f"selection {selection!r} is unknown; use one of {', '.join(SELECTIONS)}")
    if not analyzer.concepts:
        raise TripartiteError("no ontology is loaded, so a question has no concepts to be read by; load one with "
                              "`tripartite ontology load PLUGIN`")
    reading = analyzer.read_cost(question_id(question), question, "question") if dry_run else 0
    if reading:
        return {"mode": "tripartite", "question": question, "tokens": max_tokens or 0,
                "total_tokens": reading + (max_tokens or 0), "estimate": True, "prompt": "", "references": [],
                "concepts": [], "material": "", "note": ""}
    extracts, spent = analyzer.read_text(question_id(question), question, "question")
    notes = []
    if not extracts:
        nearest = analyzer.nearest_concepts(question, NEAREST_CONCEPTS, NEAREST_FLOOR)
        extracts = {cid: question for cid in nearest}
        if nearest:
            notes.append("the question names none of the loaded concepts, so the ones nearest to it in meaning stand "
                         f"in: {', '.join(analyzer.concepts[cid].name for cid in nearest)}")
        else:
            notes.append("the question concerns none of the loaded concepts, so the Tripartite prompt has no "
                         "evidence; try another mode (hybrid, rag) or an ontology that covers it")
    alpha, beta = thresholds(graph, alpha, beta)
    rows, spare = question_rows(graph, extracts, analyzer.embedder.embed(list(extracts.values())), alpha, beta,
                                selection) if extracts else ([], [])
    if extracts and not rows:
        notes.append("no chunk extract of the question's concepts exists yet; run `tripartite analyze`")
    gap = analysis_gap(graph)
    if gap:
        notes.append(gap)
    behind = distribution_gap(graph)
    if behind:
        notes.append(behind)
    unstored = [row["name"] for row in rows if not row["stored"]]
    if unstored:
        notes.append(f"{len(unstored)} of the question's concepts have no stored score distribution (no object was "
                     f"selected on them), so their candidates' own scores stand in: {', '.join(unstored[:5])}")

    def layout(kept: list[dict]) -> dict:
        return build_prompt("question", kept, question, alpha, beta, selection, max_tokens, PREAMBLE)

    built, dropped = fit(rows, layout, max_tokens, spare)
    add_percentiles(graph, built)
    own = {(row["concept_id"], e["chunk_id"]): e["own_p"] for row in rows for e in row["evidence"]}
    own.update(((cid, e["chunk_id"]), e["own_p"]) for cid, e in spare)
    for concept in built["concepts"]:  # no stored distribution: the question's own candidates' P_c(w)
        for e in concept["evidence"]:
            if e["p"] is None:
                e["p"] = own.get((concept["concept_id"], e["chunk_id"]))
    evidence = [e for c in built["concepts"] for e in c["evidence"]]
    return {"mode": "tripartite", "question": question, "tokens": built["tokens"],
            "total_tokens": built["tokens"] + spent, "prompt": built["prompt"], "references": built["references"],
            "concepts": built["concepts"], "alpha": alpha, "beta": beta, "selection": selection, "dropped": dropped,
            "material": "\n".join(e["text"] for e in evidence), "note": "; ".join(notes)}
