"""One place to open Neo4j and run the project's Cypher scripts against it."""
from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterator, TypeVar
from urllib.parse import unquote, urlsplit, urlunsplit

from tripartite.infra import cypher
from tripartite.infra.config import Settings
from tripartite.infra.secrets import mask_userinfo
from tripartite.infra.errors import Neo4jUnavailable

if TYPE_CHECKING:  # the driver is imported when a command first connects, not for --help
    import neo4j

T = TypeVar("T")

# The server's notifications ("property `unbinned` does not exist": a property only the
# selection's plugin writes; performance hints) say nothing to a user of the project's own
# scripts, and the driver logs them as warnings into the caller's process. Every session the
# project opens asks the server for none, on a driver it opened (open_driver) or one it was
# given (neo4j-graphrag users hand theirs to TripartiteRetriever). Bolt 5.2 (Neo4j 5.7) and
# later take this; the project needs Neo4j 5.13 or later for its vector index anyway.
QUIET = {"notifications_min_severity": "OFF"}


class ScriptTransaction:
    """A transaction the caller owns, in which several scripts run together."""

    def __init__(self, tx: neo4j.ManagedTransaction | neo4j.Transaction):
        self.tx = tx

    def run(self, name: str, **params: Any) -> list[dict]:
        script = cypher.script(name)
        if script.mode == "auto":
            raise cypher.CypherScriptError(f"cypher/{name}.cypher runs as auto-commit queries and cannot share "
                                           "a transaction; run it with Graph.run")
        return _run_statements(self.tx, script, params)


class Graph:
    """The configured database: a driver, the database's name, and the one way the project
    runs its scripts. How a script runs (read, write, auto) is said by its first line."""

    def __init__(self, driver: neo4j.Driver, database: str):
        self.driver = driver
        self.database = database

    def session(self, database: str | None = None, **options: Any) -> neo4j.Session:
        """A session on this database (or `database`) that receives no server notifications."""
        return self.driver.session(database=database or self.database, **QUIET, **options)

    def run(self, name: str, **params: Any) -> list[dict]:
        """Run cypher/<name>.cypher; return the rows of its last statement."""
        script = cypher.script(name)
        if script.mode == "read":
            from neo4j import READ_ACCESS

            with self.session(default_access_mode=READ_ACCESS) as session:
                if len(script.statements) == 1:  # no BEGIN and COMMIT round trips for a prompt
                    return [_row(record) for record in session.run(script.statements[0].text, params)]
                return session.execute_read(lambda tx: _run_statements(tx, script, params))
        if script.mode == "write":
            with self.session() as session:
                return session.execute_write(lambda tx: _run_statements(tx, script, params))
        rows: list[dict] = []
        with self.session() as session:
            for statement in script.statements:
                rows = [_row(record) for record in session.run(statement.text, params)]
        return rows

    def one(self, name: str, **params: Any) -> dict | None:
        """The first row of a script, or None."""
        rows = self.run(name, **params)
        return rows[0] if rows else None

    def write_transaction(self, work: Callable[[ScriptTransaction], T], retry: bool = True) -> T:
        """Run `work` in one write transaction, retried by the driver on transient errors (for
        the driver's retry time: 30 s unless open_driver was given another) unless `retry` is
        False: a transaction too big for the server's memory fails the same way every time, so
        its caller asks for one try."""
        options = {} if retry else {"max_transaction_retry_time": 0}
        with self.session(**options) as session:
            return session.execute_write(lambda tx: work(ScriptTransaction(tx)))

    def close(self) -> None:
        self.driver.close()


def _run_statements(tx, script: cypher.Script, params: dict) -> list[dict]:
    rows: list[dict] = []
    for statement in script.statements:
        rows = [_row(record) for record in tx.run(statement.text, params)]
    return rows


def _row(record: neo4j.Record) -> dict:
    """A record as a dict. The scripts return values, maps and lists, never nodes or
    relationships, so the driver's own values serve as they are (Record.data() would walk
    them again: milliseconds on a prompt of hundreds of maps)."""
    return dict(zip(record.keys(), record.values()))


def open_driver(settings: Settings, connect_timeout: float = 10.0, retry_time: float = 30.0) -> neo4j.Driver:
    """A connected driver, or Neo4jUnavailable naming the URI (never a password) and what to do.
    A user and password written into the URI are taken as the credentials. `retry_time` bounds
    how long a transaction is retried on transient errors, a server gone away among them."""
    from neo4j import GraphDatabase
    from neo4j.exceptions import AuthError, ConfigurationError, ServiceUnavailable

    address, user, password = _split_userinfo(settings.neo4j_uri)
    user = user or settings.neo4j_user
    password = settings.neo4j_password or password
    auth = (user, password) if password else None
    uri = settings.neo4j_uri_shown
    scheme = urlsplit(address).scheme.lower()
    if scheme not in BOLT_SCHEMES:
        bolt = _bolt_address_served_at(address) if scheme in ("http", "https") else None
        raise Neo4jUnavailable(f"NEO4J_URI={uri!r} is not a Bolt URI (the project talks Bolt: "
                               f"{', '.join(s + '://' for s in BOLT_SCHEMES[:2])} ...); use "
                               f"{bolt or 'e.g. bolt://127.0.0.1:7687'}"
                               + (" (what the server at that address says its Bolt address is)" if bolt else ""))
    problem = _not_bolt(address, connect_timeout)
    if problem:
        bolt = _bolt_address_served_at(address)
        if bolt:
            raise Neo4jUnavailable(f"{uri} is the HTTP port of a Neo4j server (its Browser and HTTP API), not its "
                                   f"Bolt port; set NEO4J_URI={bolt} (what that server says its Bolt address is)")
        raise Neo4jUnavailable(f"the server at {uri} {problem}, so it is not a Neo4j Bolt port; set NEO4J_URI to "
                               "your Neo4j's Bolt address (e.g. bolt://127.0.0.1:7687)")
    try:
        driver = GraphDatabase.driver(address, auth=auth, connection_timeout=connect_timeout,
                                      connection_acquisition_timeout=connect_timeout,
                                      max_transaction_retry_time=retry_time, **QUIET)
    except (ConfigurationError, ValueError) as exc:
        raise Neo4jUnavailable(f"NEO4J_URI={uri!r} is not a usable Neo4j URI ({mask_userinfo(_first_line(exc))}); "
                               "use e.g. bolt://127.0.0.1:7687") from None
    try:
        driver.verify_connectivity()
    except AuthError:
        driver.close()
        raise Neo4jUnavailable(f"Neo4j at {uri} refused the credentials of user {user!r}; "
                               "set NEO4J_USER and NEO4J_PASSWORD") from None
    except (ServiceUnavailable, OSError) as exc:
        driver.close()
        bolt = _bolt_address_served_at(address)
        if bolt:
            raise Neo4jUnavailable(f"{uri} is the HTTP port of a Neo4j server (its Browser and HTTP API), not its "
                                   f"Bolt port; set NEO4J_URI={bolt} (what that server says its Bolt address is)") from None
        hint = ("start it with `tripartite server start`" if not settings.uri_from_user
                else "check that it runs and that NEO4J_URI is right")
        reason = "connection refused" if "Couldn't connect" in str(exc) else mask_userinfo(_first_line(exc))
        raise Neo4jUnavailable(f"Neo4j is not reachable at {uri} ({reason}); {hint}") from None
    return driver


BOLT_SCHEMES = ("bolt", "neo4j", "bolt+s", "neo4j+s", "bolt+ssc", "neo4j+ssc")
# Bolt's opening: the magic preamble, then four proposed versions (5.4 down to 5.0, 4.4, none, none).
BOLT_HANDSHAKE = bytes.fromhex("6060b017" "00040405" "00000404" "00000000" "00000000")
HANDSHAKE_WAIT = 1.5  # seconds: a Bolt server answers at once; an HTTP server waits for a request line


def _not_bolt(address: str, connect_timeout: float) -> str | None:
    """What the server at a plain bolt:// or neo4j:// address answers instead of the Bolt
    handshake, or None when it speaks Bolt, cannot be reached (the driver says so), or is
    behind TLS (bolt+s://: not probed). The driver alone would wait out its connection timeout
    on, say, a web server, and then call it "connection refused"."""
    import socket

    parts = urlsplit(address)
    if parts.scheme.lower() not in ("bolt", "neo4j") or not parts.hostname:
        return None
    try:
        with socket.create_connection((parts.hostname, parts.port or 7687), timeout=connect_timeout) as sock:
            sock.settimeout(HANDSHAKE_WAIT)
            sock.sendall(BOLT_HANDSHAKE)
            reply = _first_bytes(sock)
            if reply is None:  # silent: a line-based server (HTTP) waits for the end of a line
                sock.sendall(b"\r\n\r\n")
                reply = _first_bytes(sock)
    except OSError:
        return None  # refused, unreachable, a name that does not resolve: the driver's message says which
    if reply is None:
        return "accepts connections but does not answer Neo4j's Bolt handshake"
    if len(reply) == 4 and reply[:2] == b"\0\0":
        return None  # a Bolt version (or 0: none of those proposed): Neo4j, or a proxy in front of it
    if reply.startswith((b"HTTP", b"<")):  # a status line, or an HTTP/0.9-style page
        return "answers HTTP (a web server)"
    if not reply:
        return "closed the connection at Neo4j's Bolt handshake"
    return "answers something other than Neo4j's Bolt protocol"


def _first_bytes(sock) -> bytes | None:
    """Up to the first 4 bytes the peer sends (b"" when it closes), None when it sends nothing in time."""
    import socket

    reply = b""
    try:
        while len(reply) < 4:
            chunk = sock.recv(4 - len(reply))
            if not chunk:
                break
            reply += chunk
    except socket.timeout:
        return reply or None
    except OSError:
        return reply
    return reply


def _bolt_address_served_at(address: str) -> str | None:
    """The Bolt URI a Neo4j HTTP endpoint at this host and port announces (its discovery
    document, GET /), or None: what someone who gave the Browser's address meant."""
    import json
    import urllib.request

    parts = urlsplit(address)
    if not parts.hostname or not parts.port:
        return None
    scheme = "https" if parts.scheme in ("https", "bolt+s", "neo4j+s") else "http"
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    try:
        with urllib.request.urlopen(f"{scheme}://{host}:{parts.port}/", timeout=2) as response:  # noqa: S310
            found = json.loads(response.read(65536))
    except Exception:  # nothing there, not HTTP, or not Neo4j's discovery document
        return None
    bolt = found.get("bolt_direct") or found.get("bolt_routing") if isinstance(found, dict) else None
    return bolt if isinstance(bolt, str) and "://" in bolt else None


def _split_userinfo(uri: str) -> tuple[str, str, str]:
    """(uri without userinfo, user, password) of e.g. bolt://neo4j:secret@host:7687."""
    parts = urlsplit(uri)
    if not parts.username and not parts.password:
        return uri, "", ""
    host = parts.hostname or ""
    netloc = f"[{host}]" if ":" in host else host
    if parts.port:
        netloc += f":{parts.port}"
    return urlunsplit(parts._replace(netloc=netloc)), unquote(parts.username or ""), unquote(parts.password or "")


@contextmanager
def connect(settings: Settings) -> Iterator[Graph]:
    """The configured database, closed again at the end of the block."""
    graph = Graph(open_driver(settings), settings.neo4j_database)
    try:
        yield graph
    finally:
        graph.close()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def memory_limit_line(message: str, uri: str) -> str:
    """A transaction over the server's memory limit: running it again fails the same way, so
    the line says how to give the server more memory, or the work less."""
    import re

    limit = re.search(r"limit (\d[\d.]* ?[KMGT]i?B)", message)
    setting = re.search(r"(dbms\.memory\.[a-z_.]+|db\.memory\.[a-z_.]+)", message)
    return (f"Neo4j at {uri} stopped the command: its transaction needed more memory than the server allows"
            f" ({setting[1] if setting else 'dbms.memory.transaction.total.max'}"
            f"{', ' + limit[1] if limit else ''}), and running it again fails the same way; give the server more "
            "(the local server: heap = \"4g\" under [server] in tripartite.toml, then `tripartite server stop` and "
            "`tripartite server start`; your own server: raise that setting or server.memory.heap.max_size in its "
            "neo4j.conf), or give the command less at once (fewer or smaller files, a smaller ontology branch)")


def neo4j_error_line(exc: Exception, uri: str, database: str) -> str:
    """One line for a Neo4j failure in the middle of a command: what happened, and the fix."""
    from neo4j.exceptions import (ClientError, DriverError, Neo4jError, ServiceUnavailable, SessionExpired,
                                  TransientError)

    code = getattr(exc, "code", None) or ""
    message = _first_line(exc)
    if "DatabaseNotFound" in code or "database does not exist" in message.lower():
        return (f"Neo4j at {uri} has no database {database!r}; set NEO4J_DATABASE to one that exists "
                "(SHOW DATABASES in the Browser lists them)")
    if isinstance(exc, (ServiceUnavailable, SessionExpired)) or isinstance(exc, (ConnectionError, OSError)):
        return (f"lost the connection to Neo4j at {uri} during the command ({message}); its unfinished transaction "
                "was rolled back: check the server (`tripartite server status`) and run the command again")
    if "but indexed vectors have" in message or "do not have the same number of dimensions" in message:
        return (f"the graph's vectors at {uri} were made by another embedding model than the configured one (their "
                "sizes differ); run `tripartite embed` (`--dry-run` first says what it re-embeds and about how long "
                "it takes), or set [embeddings] model back to the one that made them (`tripartite doctor` names it)")
    if "MemoryPoolOutOfMemory" in code or "OutOfMemory" in code or "memory.transaction" in message:
        return memory_limit_line(message, uri)
    if isinstance(exc, TransientError):
        return f"Neo4j could not finish the command ({code}: {message}); run it again"
    if isinstance(exc, ClientError):
        return f"Neo4j refused the command ({code}: {message})"
    if isinstance(exc, (Neo4jError, DriverError)):
        return f"Neo4j failed during the command ({type(exc).__name__}: {message})"
    return f"{type(exc).__name__}: {message}"
