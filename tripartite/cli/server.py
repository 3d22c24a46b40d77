"""`tripartite server`: the local Neo4j 5.26 + APOC + Browser, from Maven Central jars.
Imports of the server's code stay inside the commands, so --help stays fast."""
from __future__ import annotations

import sys
import time
from dataclasses import replace
from typing import TYPE_CHECKING

import click

from tripartite.cli.common import App, output, pass_app, say
from tripartite.infra.config import ServerSettings
from tripartite.infra.errors import TripartiteError

if TYPE_CHECKING:
    from tripartite.infra.server.local import LocalServer, ServerStatus


def local_server(app: App, bolt_port: int | None = None, http_port: int | None = None) -> LocalServer:
    from tripartite.infra.server.local import LocalServer

    settings = app.settings.server
    if bolt_port:
        settings = replace(settings, bolt_port=bolt_port)
    if http_port:
        settings = replace(settings, http_port=http_port)
    return LocalServer(settings, app.settings.cache_dir, say=say)


def ensure_server(app: App, note=say) -> None:
    """Start the local Neo4j unless the user configured a server of their own, or one already
    listens on its Bolt port (another server home's, or a Neo4j of the user's): every other
    command talks to that one at the default address, so these do too."""
    if app.settings.uri_from_user:
        return
    from tripartite.infra.server.local import port_in_use

    local = local_server(app)
    if local.status().running:
        return
    port = app.settings.server.bolt_port
    if port_in_use(port):
        note(f"using the Neo4j already listening on 127.0.0.1:{port} (not the local server of {local.home}); "
             "set NEO4J_URI to name a server explicitly")
        return
    # Fetching the jars, when they are not cached yet, says so itself.
    note(f"starting the local Neo4j in {local.home} (it keeps running; `tripartite server stop` stops it)")
    local.start()


def status_lines(status: ServerStatus) -> list[str]:
    if status.running:
        return [f"running (pid {status.pid}), Neo4j {status.neo4j_version}", f"  bolt:    {status.bolt_uri}",
                f"  browser: {status.browser_url}", f"  home:    {status.home}"]
    return [f"not running (home {status.home})"]


def _status_dict_lines(status: dict) -> list[str]:
    from tripartite.infra.server.local import ServerStatus

    return status_lines(ServerStatus(**status))


@click.group("server")
def server_group() -> None:
    """The local Neo4j 5.26 + APOC + Browser, built from Maven Central jars (no Docker)."""


@server_group.command("start")
@click.option("--bolt-port", type=int, help=f"Bolt port (default {ServerSettings.bolt_port}, or [server] bolt_port, "
                                            "TRIPARTITE_BOLT_PORT).")
@click.option("--http-port", type=int, help=f"HTTP/Browser port (default {ServerSettings.http_port}, or [server] "
                                            "http_port, TRIPARTITE_HTTP_PORT).")
@output(_status_dict_lines)
@pass_app
def server_start(app: App, bolt_port: int | None, http_port: int | None) -> dict:
    """Resolve the jars (first time only), write the config, start, and wait for Bolt."""
    local = local_server(app, bolt_port, http_port)
    was_running = local.status().running
    started = time.monotonic()
    status = local.start()
    say("already running" if was_running else f"started in {time.monotonic() - started:.1f} s")
    return status.as_dict()


@server_group.command("stop")
@output(lambda stopped: ["stopped" if stopped["stopped"] else "not running"])
@pass_app
def server_stop(app: App) -> dict:
    """Shut the local server down cleanly (SIGTERM, then wait)."""
    return {"stopped": local_server(app).stop()}


@server_group.command("status")
@output(_status_dict_lines, exit_code=lambda status: 0 if status["running"] else 3)
@pass_app
def server_status(app: App) -> dict:
    """Say whether the local server runs, and where. Exit code 3 when it does not."""
    return local_server(app).status().as_dict()


@server_group.command("remove")
@click.option("--yes", is_flag=True, help="Do not ask first.")
@output(lambda removed: [f"removed {removed['home']}" if removed["removed"] else f"nothing at {removed['home']}"])
@pass_app
def server_remove(app: App, yes: bool) -> dict:
    """Stop the local server and delete its home: its databases, logs and settings (the jar
    cache stays, so a later start is quick)."""
    local = local_server(app)
    if not local.exists():
        return {"home": str(local.home), "removed": False}
    if not yes:
        if not sys.stdin.isatty():  # a script cannot answer: deleting databases unasked is no default
            raise TripartiteError(f"server remove deletes {local.home} and every database in it; with no terminal to "
                                  "ask, pass --yes")
        click.confirm(f"delete {local.home} and every database in it?", abort=True, err=True)
    local.remove()
    return {"home": str(local.home), "removed": True}


@server_group.command("logs")
@click.option("-n", "--lines", type=click.IntRange(min=1), default=50, show_default=True,
              help="How many lines from the end.")
@click.option("-f", "--follow", is_flag=True, help="Keep printing new lines until Ctrl-C.")
@pass_app
def server_logs(app: App, lines: int, follow: bool) -> None:
    """Print the end of the server's log."""
    local = local_server(app)
    if not local.console_log.is_file():
        raise TripartiteError(f"no server log at {local.console_log}: the server was never started there (or removed)")
    click.echo(local.log_tail(lines))
    if follow:
        with local.console_log.open("r", encoding="utf-8", errors="replace") as handle:
            handle.seek(0, 2)
            while True:
                line = handle.readline()
                if line:
                    click.echo(line, nl=False)
                else:
                    time.sleep(0.5)


COMMANDS = [server_group]


@server_group.command("plugin")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=".", show_default=True,
              help="The folder to copy the jar to: a Docker volume's or a self-managed server's plugins folder.")
@output(lambda built: [f"wrote {built['jar']}", "on that server, allow it in neo4j.conf and restart:",
                       "  dbms.security.procedures.unrestricted=apoc.*,gds.*,tripartite.*",
                       "then `tripartite doctor` says the selection runs on the plugin"])
@pass_app
def server_plugin(app: App, out_dir: str) -> dict:
    """Build the selection's procedure plugin (procedures/, Java 17 and Maven) for a server
    this command does not manage (Docker, compose, self-managed) and copy its jar to --out.
    The local server needs none of this: `server start` installs it."""
    import shutil
    from pathlib import Path

    from tripartite.infra.server.plugin import build

    jar = build(app.settings.cache_dir, app.settings.server.neo4j_version, say)
    if jar is None:
        raise TripartiteError("the procedure plugin could not be built (see the line above); the selection runs "
                              "its Cypher scripts on that server meanwhile")
    target = Path(out_dir)
    target.mkdir(parents=True, exist_ok=True)
    for old in target.glob("tripartite-procedures-*.jar"):  # one version at a time on a server
        old.unlink()
    copied = target / jar.name
    shutil.copyfile(jar, copied)
    return {"jar": str(copied)}
