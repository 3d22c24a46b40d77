"""Run locks: one `tripartite select` (or ingest, kg build, analysis, migration) at a time per database.

A lock is a node, (:__TripartiteLock {id}), write-locked by a transaction that stays open for the
whole run and is rolled back at the end: it never changes the graph. A second run's transaction
blocks on the node until the first one ends, whether it commits, rolls back or dies (the server
rolls back the transaction of a closed connection), so a killed run never leaves a stale lock.
The second run says once that it waits, then goes on where the first left off: a second
`kg extract` finds the chunks extracted and pays for nothing twice.
"""
from __future__ import annotations

import os
import socket
import sys
import threading
import time
import weakref
from contextlib import contextmanager
from typing import Callable, Iterator

from tripartite.infra.errors import TripartiteError
from tripartite.infra.graph import Graph, ScriptTransaction

NOTICE_AFTER_SECONDS = 1.0   # say that we wait when the lock has not come within this
_held: dict[tuple[int, str], int] = {}   # (graph, lock) -> depth: a lock is re-entrant within a process
_held_guard = threading.Lock()


class LockTimeout(TripartiteError):
    pass


def to_stderr(message: str) -> None:
    """The default way a waiting run says so (the CLI passes its own)."""
    print(f"note: {message}", file=sys.stderr, flush=True)


_constrained: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # driver -> databases with the constraint


def ensure_lock_constraint(graph: Graph) -> None:
    """The constraint that makes a lock one node (migration V011 has it; a database that is not
    migrated yet, as on the first `migrate`, gets it here). Made sure of once per driver and
    database: a process that runs select again and again (an agent's server) asks once."""
    from neo4j.exceptions import Neo4jError

    if graph.database in _constrained.get(graph.driver, ()):
        return
    for attempt in range(5):  # two first runs may create it at once
        try:
            graph.run("infra/lock_constraint")
            _constrained.setdefault(graph.driver, set()).add(graph.database)
            return
        except Neo4jError:
            if attempt == 4:
                raise
            time.sleep(0.2 * (attempt + 1))


@contextmanager
def run_lock(graph: Graph, name: str, command: str, on_wait: Callable[[str], None] = to_stderr,
             wait_seconds: float | None = None) -> Iterator[None]:
    """Hold the database's lock `name` while the block runs. A second holder waits (and says so
    through on_wait, naming `command`); after `wait_seconds` (None: no limit) it gives up with
    LockTimeout. Re-entrant within one process."""
    key = (id(graph), name)
    with _held_guard:
        if key in _held:
            _held[key] += 1
            reentered = True
        else:
            reentered = False
    if reentered:
        try:
            yield
        finally:
            with _held_guard:
                _held[key] -= 1
        return
    ensure_lock_constraint(graph)
    graph.run("infra/create_lock", id=name)
    session = graph.session()
    holder = f"{socket.gethostname()}:{os.getpid()}"
    taken: dict = {}

    def take() -> None:
        # timeout=0: no limit, whatever db.transaction.timeout the server sets, or a long run
        # would lose its lock halfway (and the waiting one its place in the queue).
        tx = session.begin_transaction(timeout=0)
        try:
            ScriptTransaction(tx).run("infra/take_lock", id=name, holder=holder)
            taken["tx"] = tx
        except BaseException as exc:  # noqa: BLE001 (handed to the waiting thread)
            taken["error"] = exc
            tx.close()

    waiter = threading.Thread(target=take, name=f"lock-{name}", daemon=True)
    waiter.start()
    waiter.join(NOTICE_AFTER_SECONDS)
    if waiter.is_alive():
        on_wait(f"another `tripartite {command}` is running on this database; waiting for it to finish "
                "(Ctrl-C stops waiting)")
        waiter.join(wait_seconds)
        if waiter.is_alive():
            session.close()  # ends the waiting transaction on the server
            raise LockTimeout(f"another `tripartite {command}` has held this database's {name} lock for over "
                              f"{wait_seconds:.0f} s; let it finish, or stop it (a stopped one releases the lock) "
                              f"and run {command} again")
    if "error" in taken:
        session.close()
        raise taken["error"]
    with _held_guard:
        _held[key] = 1
    try:
        yield
    finally:
        with _held_guard:
            _held.pop(key, None)
        try:
            taken["tx"].close()  # rolls back: the lock node was only ever a lock
        finally:
            session.close()
