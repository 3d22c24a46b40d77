"""`tripartite kg extract`: DB-GPT's triplet extraction on the project's lexical graph.

One LLM call per chunk not yet extracted (or extracted with another prompt), through the
project's LLM runner (cache, concurrency, retries, repair, accounting, circuit breaker). The
prompt carries the chunk and, as context, what its k most similar other chunks (vector index,
cypher/kg/chunks_to_extract.cypher) contribute: the names of the entities extracted from them,
or, for one not extracted yet, the names the offline extractor finds in it. So the context is
known before any call: the dry run counts exact tokens, every prompt is the same on a resumed
run (its cached answers are found), and the calls run concurrently. Each answer is written as it
arrives (cypher/kg/write_extraction.cypher), so a killed run loses at most the calls in flight.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

from tripartite.infra.config import KgSettings
from tripartite.infra.graph import Graph
from tripartite.ontology.concept import ConceptInfo
from tripartite.infra.llm.runner import TOTALS, LLMRunner
from tripartite.infra.tokens import count_tokens
from tripartite.kg.communities import describe
from tripartite.kg.extractive import TripletExtractor, recurring_terms
from tripartite.kg.prompts import extraction_prompt, passage, version
from tripartite.kg.schema import TripletTask, entity_key, normal_name, relation_type, type_label

CONTEXT_NAMES = 20      # names of the context at most: named concepts and names first, the most shared first
MIN_PASSAGE_CHARS = 20  # a chunk that is only images and links has nothing to extract: no call
WRITE_EVERY = 4


@dataclass
class Plan:
    tasks: list[TripletTask] = field(default_factory=list)
    empty: list[str] = field(default_factory=list)     # chunks with nothing to extract: recorded, no call
    redo: list[str] = field(default_factory=list)      # chunks extracted before, extracted again: forgotten first
    refreshed: list[dict] = field(default_factory=list)  # offline answers unchanged in a new context: {id, fingerprint}


def offline_extractor(graph: Graph) -> TripletExtractor:
    """The offline extractor over the loaded concepts and the corpus's recurring terms."""
    concepts = [ConceptInfo(r["id"], r["name"], tuple(r["synonyms"]), r["description"])
                for r in graph.run("analysis/concepts", ontology=None)]
    texts = [row["text"] for row in graph.run("kg/chunk_texts")]
    return TripletExtractor(concepts, recurring_terms(texts))


def made_by(provider) -> str:
    """Who answers, as chunks, reports and summaries record it: provider/model."""
    return f"{provider.name}/{provider.model}"


def plan(graph: Graph, offline: TripletExtractor, k: int = KgSettings.context_k,
         min_similarity: float = KgSettings.min_similarity,
         provider=None, redo: bool = False, only_provider: str | None = None) -> Plan:
    """The chunks to extract and each one's prompt. min_similarity is a cosine (DB-GPT's 0.3).
    `provider` is who will answer (default: the offline extractor); with `redo`, chunks another
    provider or model extracted are extracted again (only `only_provider`'s, when given). When
    the offline extractor answers, chunks it extracted in another context (the corpus's recurring
    terms or the ontology changed) are extracted again where its answer changed."""
    provider = provider or offline
    current = version()
    result = Plan()
    changed: list[str] = []
    if provider is offline:
        for row in graph.run("kg/offline_extractions", version=current, by=made_by(offline),
                             context=offline.context_hash):
            if not row["fingerprint"]:  # too short to extract: no answer to change (as kg status counts it)
                continue
            task = TripletTask("kg", row["id"], "", row["text"], ())
            fingerprint = offline.fingerprint(offline.answer(task)[0])
            if fingerprint.split(":", 1)[1] == row["fingerprint"].split(":", 1)[1]:
                result.refreshed.append({"id": row["id"], "fingerprint": fingerprint})
            else:
                changed.append(row["id"])
    rows = graph.run("kg/chunks_to_extract", version=current, k=k, min_score=(1 + min_similarity) / 2,
                     redo=changed, redo_by=made_by(provider) if redo else None, only_provider=only_provider)
    for row in rows:
        if row["extracted_with"]:
            result.redo.append(row["id"])
        if len(passage(row["text"])) < MIN_PASSAGE_CHARS:
            result.empty.append(row["id"])
            continue
        names = _context_names(row["similar"], offline)
        where = row["document"] if row["section"] == row["document"] else f"{row['document']} > {row['section']}"
        result.tasks.append(TripletTask("kg", row["id"], extraction_prompt(row["text"], where, names), row["text"],
                                        tuple(names)))
    return result


def _context_names(similar: list[dict], offline: TripletExtractor) -> list[str]:
    """Names the similar chunks name (as the offline extractor finds them), the ones most of them
    share first."""
    counts: dict[str, list] = {}
    for neighbour in similar:
        found = [(name, kind) for _, _, name, kind in offline.mentions(passage(neighbour["text"] or ""))]
        for name, kind in dict.fromkeys(found):
            entry = counts.setdefault(normal_name(name), [0, name, kind])
            entry[0] += 1
    rank = {"Term": 1}  # the offline extractor's recurring phrases after every named thing
    ranked = sorted(counts.values(), key=lambda e: (rank.get(e[2], 0), -e[0], normal_name(e[1])))[:CONTEXT_NAMES]
    by_type: dict[str, list[str]] = {}
    for _, name, kind in ranked:
        by_type.setdefault(kind, []).append(name)
    return [f"{kind}: {', '.join(names)}" for kind, names in by_type.items()]


def others(graph: Graph, provider) -> list[dict]:
    """What another provider or model than `provider` made in the triplet graph: [{stage, by, items}]."""
    current = made_by(provider)
    return [row for row in graph.run("kg/provenance", version=version()) if row["by"] != current]


def dry_run_figures(plan: Plan, cached: Callable[[TripletTask], bool]) -> dict:
    """Calls and exact prompt tokens (cl100k_base) the plan would spend."""
    calls = [t for t in plan.tasks if not cached(t)]
    return {"calls": len(calls), "prompt_tokens": sum(count_tokens(t.prompt) for t in calls),
            "cached": len(plan.tasks) - len(calls), "chunks": len(plan.tasks) + len(plan.empty),
            "without_text": len(plan.empty), "redo": len(plan.redo)}


def _row(chunk_id: str, answer: dict, fingerprint: str | None) -> dict:
    """An answer as write_extraction.cypher takes it: entities keyed, relations by key."""
    entities: dict[str, dict] = {}
    for e in answer["entities"]:
        key = entity_key(e["name"], e["type"])
        entities.setdefault(key, {"key": key, "name": e["name"].strip(), "label": type_label(e["type"]),
                                  "description": e["description"]})
    by_name = {normal_name(e["name"]): e["key"] for e in entities.values()}
    relations = [{"source": by_name[normal_name(r["source"])], "target": by_name[normal_name(r["target"])],
                  "type": relation_type(r["type"]), "description": r["description"]}
                 for r in answer["relations"]
                 if by_name[normal_name(r["source"])] != by_name[normal_name(r["target"])]]
    return {"chunk_id": chunk_id, "fingerprint": fingerprint, "entities": list(entities.values()),
            "relations": relations}


def execute(graph: Graph, runner: LLMRunner, plan: Plan, on_done: Callable[[int], None] = lambda n: None) -> dict:
    """Run the plan: forget what re-extracted chunks gave, extract, write, link concepts.
    Returns the accounting with the errors of failed chunks (they stay pending)."""
    started = time.time()
    current = version()
    provider = runner.provider
    by = made_by(provider)
    fingerprint = getattr(provider, "fingerprint", None) if provider.offline else None
    if not provider.offline and any(not runner.is_cached(t) for t in plan.tasks):
        provider.check_reachable()
    if plan.redo:
        graph.run("kg/forget_chunks", chunk_ids=plan.redo)
    if plan.empty:
        graph.run("kg/write_extraction", version=current, by=by,
                  rows=[{"chunk_id": c, "fingerprint": None, "entities": [], "relations": []} for c in plan.empty])
    errors, pending = [], []

    def flush() -> None:
        if pending:
            graph.run("kg/write_extraction", version=current, by=by, rows=list(pending))
            pending.clear()

    for outcome in runner.run(plan.tasks):
        on_done(1)
        if outcome.skipped:
            continue
        if outcome.error:
            errors.append(outcome.error)
            continue
        pending.append(_row(outcome.task.item_id, outcome.result,
                            fingerprint(outcome.result) if fingerprint else None))
        if len(pending) >= WRITE_EVERY:
            flush()
    flush()
    if plan.refreshed:
        graph.run("kg/refresh_fingerprints", rows=plan.refreshed)
    tidy(graph)
    stages = runner.accounting.as_dict()
    totals = runner.accounting.totals(TOTALS)
    return {"errors": errors, "stopped": runner.stopped, "stages": stages, **totals,
            "seconds": round(time.time() - started, 2), "status": status(graph)}


def status(graph: Graph, min_size: int = KgSettings.min_size) -> dict:
    """How far the triplet graph is (cypher/kg/status.cypher); communities smaller than
    min_size get no report, so they count as reported."""
    return {**graph.one("kg/status", version=version(), min_size=min_size), "min_size": min_size}


def tidy(graph: Graph) -> None:
    """After the graph changed: drop what chunks that are gone left behind (withdrawing the
    reports that may quote it), give changed entities and relations their descriptions, and
    link entities to the ontology's concepts again."""
    graph.run("kg/prune")
    graph.run("kg/retract_reports")
    describe(graph)
    graph.run("kg/link_concepts")
