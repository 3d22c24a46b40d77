"""Running the pipeline's Cypher scripts (cypher/<step>/<name>.cypher).

A script is one or more parameterised statements, the same text a user can paste into
Neo4j Browser after setting the parameters with :param. This module only loads them and
runs them in a transaction the caller owns.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

import neo4j

from tripartite.cypher_script import Statement, read_script
from tripartite.paths import cypher_dir


@lru_cache(maxsize=None)
def load(name: str) -> tuple[Statement, ...]:
    """Statements of cypher/<name>.cypher, e.g. load("lexical/structure_edges")."""
    return tuple(read_script(cypher_dir() / f"{name}.cypher"))


def run(tx: neo4j.ManagedTransaction | neo4j.Transaction, name: str, **params: Any) -> list[dict]:
    """Run every statement of a script in `tx`; return the last statement's rows."""
    rows: list[dict] = []
    for statement in load(name):
        result = tx.run(statement.text, params)
        rows = [_row(record) for record in result]
    return rows


def _row(record: neo4j.Record) -> dict:
    """A record as a dict. The scripts return values, maps and lists, never nodes or
    relationships, so the driver's own values serve as they are (Record.data() would walk
    them again: milliseconds on a prompt of hundreds of maps)."""
    return dict(zip(record.keys(), record.values()))


def query(driver: neo4j.Driver, database: str, name: str, **params: Any) -> list[dict]:
    """Run a read-only script in its own transaction. A one-statement script runs as an
    auto-commit query: no BEGIN and COMMIT round trips (prompts are built on request)."""
    with driver.session(database=database, default_access_mode=neo4j.READ_ACCESS) as session:
        statements = load(name)
        if len(statements) == 1:
            return [_row(record) for record in session.run(statements[0].text, params)]
        return session.execute_read(lambda tx: run(tx, name, **params))


def write(driver: neo4j.Driver, database: str, name: str, **params: Any) -> list[dict]:
    """Run a writing script in its own transaction."""
    with driver.session(database=database) as session:
        return session.execute_write(lambda tx: run(tx, name, **params))


def run_autocommit(driver: neo4j.Driver, database: str, name: str, **params: Any) -> None:
    """Run each statement as its own auto-commit query (needed by CALL ... IN TRANSACTIONS)."""
    with driver.session(database=database) as session:
        for statement in load(name):
            session.run(statement.text, params).consume()
