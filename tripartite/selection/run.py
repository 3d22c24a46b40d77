"""Prompt creation as node classification (paper, section 2.2): running the selection's
scripts in cypher/selection/, in this order:

    score.cypher         w(o,c,t) for every candidate: one Evidence node each
    distribution.cypher  P_c, each concept's distribution of w, and the alpha and beta thresholds
    classify.cypher      the alpha step and the Markov-blanket (beta) step

Python only runs them in order; every number comes from Cypher.
"""
from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import Callable

from tripartite.infra.errors import TripartiteError
from tripartite.infra.graph import Graph
from tripartite.infra.locks import run_lock, to_stderr


@dataclass(frozen=True)
class SelectionReport:
    candidates: int
    selected_alpha: int
    selected_beta: int
    concepts: int
    floor: int  # each (object, concept)'s best candidate that alpha and beta left out
    full: bool = True  # False: an incremental run over some objects


def select(graph: Graph, alpha: float, beta: float, object_ids: list[str] | None = None,
           on_step: Callable[[str, float], None] | None = None, concurrency: int | None = None,
           on_wait: Callable[[str], None] = to_stderr) -> SelectionReport:
    """Score the candidates of some objects (or all), rebuild P_c for the concepts they touch
    (or all), and classify. With object_ids, the other objects' Evidence is rewritten only
    where a moved threshold changes its class; the report then counts those objects alone.
    An incremental run becomes a full one when inputs other than objects changed since the
    last full run, or that run did not finish. The run is recorded in the graph from start to
    finish, so prompts can refuse the mix an interrupted run leaves. `concurrency`: how many
    transactions each step runs at once (None: as many as the server has processors). One run at
    a time per database: a second one waits for the first (and says so through on_wait)."""
    with run_lock(graph, "select", "select", on_wait):
        return _select(graph, alpha, beta, object_ids, on_step, concurrency)


def _select(graph: Graph, alpha: float, beta: float, object_ids: list[str] | None,
            on_step: Callable[[str, float], None] | None, concurrency: int | None) -> SelectionReport:
    _refuse_old_evidence(graph)
    concurrency = concurrency or server_concurrency(graph)
    if object_ids is not None:
        known = {row["id"] for row in graph.run("objects/object_state", object_ids=object_ids)}
        missing = [o for o in object_ids if o not in known]
        if missing:
            raise TripartiteError(f"no object with id {missing[0]!r}; see `tripartite objects list`")
        if not graph.one("selection/inputs_state")["current"]:
            object_ids = None  # the others' candidates may have changed too
    run = uuid.uuid4().hex
    graph.run("selection/begin_run", run=run, alpha=alpha, beta=beta, object_ids=object_ids)

    # Each step commits in small transactions (a million candidates do not fit in one); a run
    # that is interrupted leaves a mix, and running select again puts it right.
    def step(name: str, **params) -> None:
        started = time.perf_counter()
        graph.run(f"selection/{name}", **params)
        if on_step:
            on_step(name, time.perf_counter() - started)

    concept_ids = None
    if object_ids is not None:  # before and after: concepts an object lost count too, and those of removed objects
        concept_ids = set(_touched_concepts(graph, object_ids)) | set(graph.one("selection/pending_concepts")["concept_ids"])
    step("score", object_ids=object_ids, run=run, concurrency=concurrency)
    if object_ids is not None:
        concept_ids = sorted(concept_ids | set(_touched_concepts(graph, object_ids)))
    step("distribution", concept_ids=concept_ids, alpha=alpha, beta=beta, concurrency=concurrency)
    step("classify", object_ids=object_ids, concurrency=concurrency)
    graph.run("selection/finish_run", run=run, object_ids=object_ids, rebuilt=concept_ids)
    counts = graph.run("selection/summary", object_ids=object_ids)[0]
    return SelectionReport(counts["candidates"], counts["alpha"], counts["beta"], counts["concepts"], counts["floor"],
                           full=object_ids is None)


def reclassify(graph: Graph, alpha: float, beta: float, concurrency: int | None = None) -> None:
    """Classify again with new alpha and beta, scores unchanged: an incremental run over no
    objects, so only the groups whose candidates cross a moved threshold are rewritten."""
    select(graph, alpha, beta, object_ids=[], concurrency=concurrency)


FALLBACK_CONCURRENCY = 2  # where the server does not say (dbms.queryJmx refused, as on Aura)


def server_concurrency(graph: Graph) -> int:
    """The Neo4j server's processors: the selection's concurrent transactions by default.
    Its transactions run on the server, so the client's processors do not matter."""
    from neo4j.exceptions import ClientError, DriverError

    try:
        row = graph.one("infra/server_processors")
    except (ClientError, DriverError):
        return FALLBACK_CONCURRENCY
    processors = row and row["processors"]
    return int(processors) if isinstance(processors, int) and processors > 0 else FALLBACK_CONCURRENCY


def remove_objects(graph: Graph, object_ids: list[str], on_wait: Callable[[str], None] = to_stderr) -> list[dict]:
    """Remove objects with their extracts and Evidence (cypher/objects/remove_objects.cypher),
    under the selection's lock; the concepts they scored under wait for the next select.
    Returns [{id, candidates}] of those that existed."""
    with run_lock(graph, "select", "select or objects remove", on_wait):
        return graph.run("objects/remove_objects", object_ids=object_ids)


def _touched_concepts(graph: Graph, object_ids: list[str]) -> list[str]:
    return [r["concept_id"] for r in graph.run("selection/touched_concepts", object_ids=object_ids)]


def _refuse_old_evidence(graph: Graph) -> None:
    """Evidence written before migration V006 kept its percentile on every node; this code
    no longer converts it (one sampled node tells)."""
    if graph.one("selection/old_evidence")["old"]:
        raise TripartiteError("this database holds Evidence from before migration V006, which this version "
                              "cannot update; select on a freshly migrated database (or run `tripartite eval --reset`)")


def candidates(graph: Graph, object_ids: list[str] | None = None) -> list[dict]:
    """Every candidate with w, p and its classification (cypher/selection/candidates.cypher)."""
    return graph.run("selection/candidates", object_ids=object_ids)


def parameters(graph: Graph) -> tuple[float | None, float | None]:
    """The alpha and beta of the last selection run."""
    row = graph.one("selection/parameters")
    return (row["alpha"], row["beta"]) if row else (None, None)
