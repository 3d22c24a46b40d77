"""Prompt creation as node classification (paper, section 2.2): running the selection's
steps, in this order (cypher/selection/, or the procedure plugin's equal; see engine.py):

    score         w(o,c,t) for every candidate, kept per (object, concept) pair on its CONCERNS edge
    distribution  P_c, each concept's distribution of w, and the alpha and beta thresholds
    classify      the alpha step, the Markov-blanket (beta) step and the floor: Evidence per pair

Python only runs them in order; every number comes from the server.
"""
from __future__ import annotations

import time
import uuid
import weakref
from dataclasses import dataclass
from typing import Callable

from tripartite.infra.errors import TripartiteError
from tripartite.infra.graph import Graph, ScriptTransaction
from tripartite.infra.locks import run_lock, to_stderr
from tripartite.selection.engine import Engine, choose


@dataclass(frozen=True)
class SelectionReport:
    candidates: int
    selected_alpha: int
    selected_beta: int
    concepts: int
    floor: int  # each (object, concept)'s best candidate that alpha and beta left out
    full: bool = True  # False: an incremental run over some objects
    engine: str = "cypher"  # the path that ran the steps (engine.py)


def select(graph: Graph, alpha: float, beta: float, object_ids: list[str] | None = None,
           on_step: Callable[[str, float], None] | None = None, concurrency: int | None = None,
           on_wait: Callable[[str], None] = to_stderr, engine: Engine | None = None) -> SelectionReport:
    """Score the candidates of some objects (or all), rebuild P_c for the concepts they touch
    (or all), and classify. With object_ids, the other objects' Evidence is rewritten only
    where a moved threshold changes its class; the report then counts those objects alone.
    An incremental run becomes a full one when inputs other than objects changed since the
    last full run, or that run did not finish. The run is recorded in the graph from start to
    finish, so prompts can refuse the mix an interrupted run leaves. `concurrency`: how many
    transactions each step runs at once (None: as many as the server has processors). One run at
    a time per database: a second one waits for the first (and says so through on_wait).
    `engine`: the path that runs the steps (default: engine.choose, the plugin where the
    server has it)."""
    with run_lock(graph, "select", "select", on_wait):
        return _select(graph, alpha, beta, object_ids, on_step, concurrency, engine)


def _select(graph: Graph, alpha: float, beta: float, object_ids: list[str] | None,
            on_step: Callable[[str, float], None] | None, concurrency: int | None,
            engine: Engine | None) -> SelectionReport:
    run = uuid.uuid4().hex
    concurrency = concurrency or server_concurrency(graph)
    chosen = engine or choose(graph)
    # Each of the plugin's steps is one transaction: the run's start joins its first step and
    # its finish the last (two commits fewer). The scripts' steps commit in small transactions
    # (a million candidates do not fit in one), so there the start commits first. A run that is
    # interrupted leaves a mix either way, and running select again puts it right.
    joined = chosen.name == "plugin"

    def step(name: str, tx: ScriptTransaction | None = None, **params) -> None:
        started = time.perf_counter()
        chosen.run(graph if tx is None else tx, name, **params)
        if on_step:
            on_step(name, time.perf_counter() - started)

    def begin(tx: ScriptTransaction) -> tuple[dict, list[str] | None]:
        """What the run needs to know (run_state.cypher), then the run recorded as started."""
        state = tx.run("selection/run_state", scope={"object_ids": object_ids})[0]
        if state["old"]:  # Evidence of the first store (one node per candidate) is converted by migration V012
            raise TripartiteError("this database holds the selection in its old form (one Evidence node per "
                                  "candidate); run `tripartite migrate`, which converts it (no LLM call)")
        scope = object_ids
        if scope is not None:
            if state["missing"]:
                raise TripartiteError(f"no object with id {state['missing'][0]!r}; see `tripartite objects list`")
            if not state["current"]:
                scope = None  # the others' candidates may have changed too
        tx.run("selection/begin_run", run=run, alpha=alpha, beta=beta, scope={"object_ids": scope})
        if joined:
            step("score", tx, object_ids=scope, concurrency=concurrency)
        return state, scope

    state, object_ids = graph.write_transaction(begin)
    if not joined:
        step("score", object_ids=object_ids, concurrency=concurrency)
    # Incremental: the distributions to bring up to date (see run_state.cypher).
    concept_ids = None if object_ids is None else sorted(state["touched"])
    step("distribution", concept_ids=concept_ids, alpha=alpha, beta=beta, concurrency=concurrency)
    if not joined:
        step("classify", object_ids=object_ids, concurrency=concurrency)

    def finish(tx: ScriptTransaction) -> dict:
        """The run recorded as finished, and what it selected."""
        if joined:
            step("classify", tx, object_ids=object_ids, concurrency=concurrency)
        analysed = tx.run("analysis/unanalysed")[0] if object_ids is None else None
        tx.run("selection/finish_run", run=run, scope={"object_ids": object_ids, "rebuilt": concept_ids},
               chunks={"chunks": analysed["chunks"], "unanalysed": analysed["unanalysed"]} if analysed else None)
        return tx.run("selection/summary", scope={"object_ids": object_ids})[0]

    counts = graph.write_transaction(finish)
    return SelectionReport(counts["candidates"], counts["alpha"], counts["beta"], counts["concepts"], counts["floor"],
                           full=object_ids is None, engine=chosen.name)


def reclassify(graph: Graph, alpha: float, beta: float, concurrency: int | None = None,
               engine: Engine | None = None) -> None:
    """Classify again with new alpha and beta, scores unchanged: an incremental run over no
    objects, so only the objects with candidates crossing a moved threshold are rewritten."""
    select(graph, alpha, beta, object_ids=[], concurrency=concurrency, engine=engine)


def finish_conversion(graph: Graph, on_wait: Callable[[str], None] = to_stderr) -> SelectionReport | None:
    """After migration V012: the selection again, with its last alpha and beta, in the new
    store (no LLM call). None when there is nothing to convert."""
    state = graph.one("selection/conversion_state")
    if not state or not state["converting"]:
        return None
    return select(graph, state["alpha"], state["beta"], on_wait=on_wait)


FALLBACK_CONCURRENCY = 2  # where the server does not say (dbms.queryJmx refused, as on Aura)


_processors: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # driver -> the server's processors


def server_concurrency(graph: Graph) -> int:
    """The Neo4j server's processors: the selection's concurrent transactions by default.
    Its transactions run on the server, so the client's processors do not matter. Asked once
    per driver (a process that selects again and again, such as an agent's server, asks once)."""
    from neo4j.exceptions import ClientError, DriverError

    if graph.driver in _processors:
        return _processors[graph.driver]
    try:
        row = graph.one("infra/server_processors")
    except (ClientError, DriverError):
        return FALLBACK_CONCURRENCY
    processors = row and row["processors"]
    if not (isinstance(processors, int) and processors > 0):
        return FALLBACK_CONCURRENCY
    _processors[graph.driver] = int(processors)
    return int(processors)


def remove_objects(graph: Graph, object_ids: list[str], on_wait: Callable[[str], None] = to_stderr) -> list[dict]:
    """Remove objects with their extracts and Evidence (cypher/objects/remove_objects.cypher),
    under the selection's lock; the concepts they scored under wait for the next select.
    Returns [{id, candidates}] of those that existed."""
    with run_lock(graph, "select", "select or objects remove", on_wait):
        return graph.run("objects/remove_objects", object_ids=object_ids)


def candidates(graph: Graph, object_ids: list[str] | None = None) -> list[dict]:
    """Every candidate with w, p and its classification (cypher/selection/candidates.cypher)."""
    return graph.run("selection/candidates", object_ids=object_ids)


def parameters(graph: Graph) -> tuple[float | None, float | None]:
    """The alpha and beta of the last selection run."""
    row = graph.one("selection/parameters")
    return (row["alpha"], row["beta"]) if row else (None, None)
