"""The no-Docker local Neo4j: config, start, stop, status, logs.

Layout of the server home (default .tripartite/neo4j beside tripartite.toml or the
current folder): conf/ (neo4j.conf, apoc.conf), data/ (the databases; survives restarts),
logs/ (console.log is the server's output), run/tripartite.pid and run/server.json.
"""
from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

from tripartite.infra.config import ServerSettings
from tripartite.infra.errors import ServerError, StorageError
from tripartite.infra.folders import HOME, HOME_FIX, not_a_folder, refusal, undeletable, writable_folder
from tripartite.infra.server.java import find_java
from tripartite.infra.server.maven import ServerJars, file_lock, resolve_jars
from tripartite.infra.server.plugin import build as build_plugin
from tripartite.infra.server.plugin import install as install_plugin

ENTRY_POINT = "org.neo4j.server.CommunityEntryPoint"
# Neo4j's off-heap buffers need these on Java 17+; without java.nio the start fails with
# "LinkageError ... DirectByteBuffer".
JVM_OPENS = [
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
    "-Dio.netty.tryReflectionSetAccessible=true",
]


@dataclass(frozen=True)
class ServerStatus:
    running: bool
    pid: int | None
    home: str
    bolt_uri: str
    browser_url: str
    neo4j_version: str

    def as_dict(self) -> dict:
        return asdict(self)


class LocalServer:
    def __init__(self, settings: ServerSettings, cache_dir: Path, say: Callable[[str], None] = lambda m: None):
        self.settings = settings
        self.cache_dir = cache_dir
        self.say = say
        self.home = settings.home
        self.conf_dir = self.home / "conf"
        self.data_dir = self.home / "data"
        self.logs_dir = self.home / "logs"
        self.run_dir = self.home / "run"
        self.pid_file = self.run_dir / "tripartite.pid"  # Neo4j manages its own neo4j.pid here
        self.info_file = self.run_dir / "server.json"
        self.console_log = self.logs_dir / "console.log"
        self.plugins_dir = self.home / "plugins"  # links to the shared jar cache, plus the procedure plugin

    # ---- state -------------------------------------------------------------------------
    def exists(self) -> bool:
        """Whether the home is there; a file where it or a folder above it must be is refused."""
        if not_a_folder(self.home) is not None:
            raise refusal(HOME, self.home, HOME_FIX, self.home, "is not a folder")
        return self.home.exists()

    def _state(self, path: Path) -> str | None:
        """A file of run/ (the pid, server.json), None when there is none."""
        try:
            return path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except OSError as exc:  # a file where a folder must be, or a home this user may not read
            raise refusal(HOME, self.home, HOME_FIX, path.parent, "cannot be read", exc) from None

    def _recorded(self) -> dict:
        try:
            return json.loads(self._state(self.info_file) or "{}")
        except json.JSONDecodeError:
            return {}

    def pid(self) -> int | None:
        """The recorded pid if that process is alive and is this home's Neo4j."""
        try:
            pid = int((self._state(self.pid_file) or "").strip())
        except ValueError:
            return None
        if not _is_our_process(pid, self.home):
            return None
        return pid

    def status(self) -> ServerStatus:
        recorded = self._recorded()
        pid = self.pid()
        bolt = recorded.get("bolt_port", self.settings.bolt_port) if pid else self.settings.bolt_port
        http = recorded.get("http_port", self.settings.http_port) if pid else self.settings.http_port
        return ServerStatus(
            running=pid is not None,
            pid=pid,
            home=str(self.home),
            bolt_uri=f"bolt://127.0.0.1:{bolt}",
            browser_url=f"http://127.0.0.1:{http}/browser/",
            neo4j_version=recorded.get("neo4j_version", self.settings.neo4j_version),
        )

    # ---- config ------------------------------------------------------------------------
    def write_config(self, jars: ServerJars, procedures: Path | None = None) -> None:
        """neo4j.conf and apoc.conf, and the server's own plugins folder: the shared jars plus,
        when given, the procedure plugin's jar."""
        for folder in (self.conf_dir, self.data_dir, self.logs_dir, self.run_dir):
            folder.mkdir(parents=True, exist_ok=True)
        install_plugin(self.plugins_dir, jars.plugins, procedures)
        s = self.settings
        lines = [
            "# Written by `tripartite server start`; edits are overwritten on the next start.",
            "server.default_listen_address=127.0.0.1",
            "server.default_advertised_address=127.0.0.1",
            f"server.bolt.listen_address=:{s.bolt_port}",
            f"server.bolt.advertised_address=:{s.bolt_port}",
            f"server.http.listen_address=:{s.http_port}",
            f"server.http.advertised_address=:{s.http_port}",
            "server.https.enabled=false",
            # Loopback only, so the Browser connects with 'No authentication'.
            "dbms.security.auth_enabled=false",
            f"server.directories.data={self.data_dir}",
            f"server.directories.logs={self.logs_dir}",
            f"server.directories.plugins={self.plugins_dir}",
            f"server.directories.run={self.run_dir}",
            f"server.memory.pagecache.size={s.pagecache}",
            "dbms.security.procedures.unrestricted=apoc.*,gds.*,tripartite.*",
            "dbms.usage_report.enabled=false",
        ]
        (self.conf_dir / "neo4j.conf").write_text("\n".join(lines) + "\n", encoding="utf-8")
        # apoc.custom.* re-reads installed procedures every second instead of every minute.
        (self.conf_dir / "apoc.conf").write_text("apoc.custom.procedures.refresh=1000\n", encoding="utf-8")

    # ---- lifecycle ---------------------------------------------------------------------
    def start(self) -> ServerStatus:
        """Start the server (or find it running). Two starts at once on one home take turns:
        the second waits for the first, then finds the server running."""
        writable_folder(self.home, HOME, HOME_FIX)
        self.run_dir.mkdir(exist_ok=True)
        with file_lock(self.run_dir / "start.lock",
                       lambda: self.say("another `tripartite server start` is starting this server; waiting for it")):
            return self._start()

    def _start(self) -> ServerStatus:
        current = self.status()
        if current.running:
            return current
        java = find_java(self.settings.java)
        for name, port in (("Bolt", self.settings.bolt_port), ("HTTP", self.settings.http_port)):
            if port_in_use(port):
                raise ServerError(f"port {port} ({name}) on 127.0.0.1 is taken by another process; stop it, or start on "
                                  f"another port with --{name.lower()}-port / TRIPARTITE_{name.upper()}_PORT")
        jars = resolve_jars(self.cache_dir, self.settings, self.say)
        procedures = build_plugin(self.cache_dir, self.settings.neo4j_version, self.say) \
            if self.settings.procedures else None
        try:
            return self._launch(java, jars, procedures)
        except ServerError:
            if procedures is None:
                raise
            # A plugin that does not load must not cost the server: start without it, and say so.
            self.say(f"Neo4j did not start with the procedure plugin (see {self.console_log}); starting it without: "
                     "select runs the Cypher scripts")
            return self._launch(java, jars, None)

    def _launch(self, java: str, jars: ServerJars, procedures: Path | None) -> ServerStatus:
        self.write_config(jars, procedures)
        command = [
            java, f"-Xms{self.settings.heap}", f"-Xmx{self.settings.heap}", *JVM_OPENS,
            "-cp", f"{jars.classpath}:{self.conf_dir}", ENTRY_POINT,
            f"--home-dir={self.home}", f"--config-dir={self.conf_dir}", "--console-mode",
        ]
        self.say(f"Starting Neo4j {self.settings.neo4j_version} in {self.home}")
        log = self.console_log.open("ab")
        log.write(f"\n---- tripartite server start {time.strftime('%Y-%m-%d %H:%M:%S')} ----\n".encode())
        log.flush()
        process = subprocess.Popen(command, cwd=self.home, stdout=log, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
        log.close()
        self.pid_file.write_text(f"{process.pid}\n")
        self.info_file.write_text(json.dumps({
            "pid": process.pid, "bolt_port": self.settings.bolt_port, "http_port": self.settings.http_port,
            "neo4j_version": self.settings.neo4j_version, "apoc_extended": jars.apoc_extended,
            "started_at": time.time(), "java": java,
        }, indent=2))
        self._wait_for_bolt(process)
        return self.status()

    def _wait_for_bolt(self, process: subprocess.Popen) -> None:
        deadline = time.monotonic() + self.settings.start_timeout
        while time.monotonic() < deadline:
            code = process.poll()
            if code is not None:
                self._forget(process.pid)
                raise ServerError(f"Neo4j exited during start (exit code {code}); see {self.console_log}",
                                  log_tail=self.log_tail(20))
            if bolt_answers(self.settings.bolt_port):
                return
            time.sleep(0.5)
        _terminate(process.pid, grace=20)
        self._forget(process.pid)
        raise ServerError(f"Neo4j did not answer on Bolt port {self.settings.bolt_port} within "
                          f"{self.settings.start_timeout:.0f} s and was stopped; see {self.console_log}",
                          log_tail=self.log_tail(20))

    def stop(self, grace: float = 60.0) -> bool:
        """Stop the server; True if one was running."""
        pid = self.pid()
        if pid is None:
            self.pid_file.unlink(missing_ok=True)
            return False
        _terminate(pid, grace)
        self._forget(pid)
        return True

    def remove(self) -> None:
        """Stop the server and delete its home (databases, logs, settings); the jars stay cached.
        A home that could be deleted only in part is not touched."""
        if self.exists():
            if not (self.conf_dir / "neo4j.conf").is_file() and any(self.home.iterdir()):
                raise ServerError(f"{self.home} does not look like a tripartite server home (no conf/neo4j.conf); "
                                  "it was left as it is")
            kept = undeletable(self.home)
            if kept is not None:
                raise StorageError(f"cannot delete {HOME} {self.home}: {'it' if kept == self.home else kept} is not "
                                   "writable; nothing was deleted: make it writable and run `tripartite server remove` "
                                   "again")
        self.stop()
        if self.home.exists():
            shutil.rmtree(self.home)

    def _forget(self, pid: int) -> None:
        """Drop the pid file if it still names `pid` (another start may have replaced it)."""
        try:
            if int(self.pid_file.read_text().strip()) == pid:
                self.pid_file.unlink()
        except (FileNotFoundError, ValueError):
            pass

    def log_tail(self, lines: int = 50) -> str:
        try:
            text = self.console_log.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return ""
        return "\n".join(text.splitlines()[-lines:])


def port_in_use(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        # SO_REUSEADDR: a port in TIME_WAIT after a clean stop is free; a listener is not.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno in (errno.EADDRINUSE, errno.EACCES):
                return True
            raise
    return False


def bolt_answers(port: int, host: str = "127.0.0.1") -> bool:
    """True once the server speaks Bolt and its default database is online."""
    from neo4j import GraphDatabase
    from neo4j.exceptions import DriverError, Neo4jError, ServiceUnavailable

    from tripartite.infra.graph import Graph

    try:
        with GraphDatabase.driver(f"bolt://{host}:{port}", auth=None, connection_timeout=2) as driver:
            record = Graph(driver, "system").one("infra/default_database_status")  # one try, no retries
        return record is not None and record["currentStatus"] == "online"
    except (ServiceUnavailable, DriverError, Neo4jError, OSError):
        return False


def _is_our_process(pid: int, home: Path) -> bool:
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return False
    args = [part.decode(errors="replace") for part in cmdline]
    return ENTRY_POINT in args and f"--home-dir={home}" in args


def _terminate(pid: int, grace: float) -> None:
    """SIGTERM (Neo4j shuts down cleanly on it), then SIGKILL after `grace` seconds."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        if not _alive(pid):
            return
        time.sleep(0.2)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return
    while _alive(pid):
        time.sleep(0.1)


def _alive(pid: int) -> bool:
    try:
        # Reap it if it is our child; otherwise just probe.
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done == pid:
            return False
    except ChildProcessError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie that is not our child still answers kill(0); check its state.
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
        return state != "Z"
    except (FileNotFoundError, IndexError):
        return False
