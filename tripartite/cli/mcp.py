"""`tripartite mcp`: the prompt builders for agents and apps, over the Model Context Protocol."""
from __future__ import annotations

import importlib.util
import os
import socket

import click

from tripartite.cli.common import App, pass_app
from tripartite.infra.errors import TripartiteError


@click.command("mcp")
@click.option("--http", "http", metavar="[HOST:]PORT", default=None,
              help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio (HOST: 127.0.0.1 unless given; "
                   "another host needs TRIPARTITE_MCP_TOKEN, which clients send as a bearer token).")
@click.option("--allow-writes", is_flag=True, help="Offer the add_object tool (stores, analyses and selects).")
@pass_app
def mcp_command(app: App, http: str | None, allow_writes: bool) -> None:
    """Serve search, object prompts, concept lookup and walks, chunk tracing and listings as MCP
    tools, with prompts (cross_examine, answer_from_documents) and resources (objects, documents,
    ontologies); stdio by default.

    Needs the optional extra: pip install 'tripartite-graphrag[mcp]'. The database is reached on
    the first call, so a client sees a database that is down as a tool error, not a dead server."""
    if importlib.util.find_spec("mcp") is None:
        raise TripartiteError("the MCP server needs the official SDK: pip install 'tripartite-graphrag[mcp]' "
                              "(or pip install mcp)")
    from importlib import metadata  # here, not at the top: it costs --help 15 ms

    installed = metadata.version("mcp")
    if tuple(int(part) for part in installed.split(".")[:2] if part.isdigit()) < (2, 3):
        raise TripartiteError(f"the MCP server needs the SDK 2.3 or later, and mcp {installed} is installed; "
                              f"pip install -U 'mcp>=2.3,<3'")
    from tripartite.serving.mcp_server import TOKEN_VARIABLE, parse_address, require_token_beyond_loopback, serve

    token = os.environ.get(TOKEN_VARIABLE) or None
    address = parse_address(http) if http is not None else None
    if address is not None:
        host, port = address
        require_token_beyond_loopback(host, token)  # refused before it says it serves
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
            try:
                probe.bind((host, port))
            except OSError as exc:
                raise TripartiteError(f"cannot serve on {host}:{port} ({exc.strerror}); choose another port "
                                      f"with --http") from None
        shown = f"[{host}]" if ":" in host else host  # an IPv6 address in a URL
        click.echo(f"serving MCP at http://{shown}:{port}/mcp"
                   + (" (bearer token required)" if token else "") + "; Ctrl-C stops it", err=True)
    serve(app.settings, address, allow_writes, token)


COMMANDS = [mcp_command]
