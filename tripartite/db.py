"""One place to open Neo4j: a driver from the settings, with errors a user can act on."""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator

import neo4j
from neo4j import GraphDatabase
from neo4j.exceptions import AuthError, ConfigurationError, ServiceUnavailable

from tripartite.config import Settings
from tripartite.errors import Neo4jUnavailable


@dataclass(frozen=True)
class ServerInfo:
    version: str
    edition: str
    apoc_version: str | None


def open_driver(settings: Settings, connect_timeout: float = 10.0) -> neo4j.Driver:
    """A connected driver, or Neo4jUnavailable naming the URI and what to do."""
    auth = (settings.neo4j_user, settings.neo4j_password) if settings.neo4j_password else None
    try:
        driver = GraphDatabase.driver(settings.neo4j_uri, auth=auth, connection_timeout=connect_timeout,
                                      connection_acquisition_timeout=connect_timeout,
                                      notifications_min_severity="OFF")
    except (ConfigurationError, ValueError) as exc:
        raise Neo4jUnavailable(f"NEO4J_URI={settings.neo4j_uri!r} is not a usable Neo4j URI ({exc}); "
                               "use e.g. bolt://127.0.0.1:7687") from None
    try:
        driver.verify_connectivity()
    except AuthError:
        driver.close()
        raise Neo4jUnavailable(f"Neo4j at {settings.neo4j_uri} refused the credentials of user "
                               f"{settings.neo4j_user!r}; set NEO4J_USER and NEO4J_PASSWORD") from None
    except (ServiceUnavailable, OSError) as exc:
        driver.close()
        hint = ("start it with `tripartite server start`" if not settings.uri_from_user
                else "check that it runs and that NEO4J_URI is right")
        reason = "connection refused" if "Couldn't connect" in str(exc) else _first_line(exc)
        raise Neo4jUnavailable(f"Neo4j is not reachable at {settings.neo4j_uri} ({reason}); {hint}") from None
    return driver


@contextmanager
def connect(settings: Settings) -> Iterator[neo4j.Driver]:
    driver = open_driver(settings)
    try:
        yield driver
    finally:
        driver.close()


def server_info(driver: neo4j.Driver, database: str | None = None) -> ServerInfo:
    records, _, _ = driver.execute_query(
        "CALL dbms.components() YIELD name, versions, edition "
        "WHERE name = 'Neo4j Kernel' RETURN versions[0] AS version, edition",
        database_=database, routing_="r",
    )
    version, edition = (records[0]["version"], records[0]["edition"]) if records else ("unknown", "unknown")
    try:
        apoc_records, _, _ = driver.execute_query("RETURN apoc.version() AS v", database_=database, routing_="r")
        apoc = apoc_records[0]["v"]
    except neo4j.exceptions.ClientError:
        apoc = None
    return ServerInfo(version=version, edition=edition, apoc_version=apoc)


def version_tuple(version: str) -> tuple[int, ...]:
    parts = []
    for piece in version.split("."):
        digits = "".join(ch for ch in piece if ch.isdigit())
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
