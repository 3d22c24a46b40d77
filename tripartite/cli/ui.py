"""`tripartite ui`: the web page that explains a prompt."""
from __future__ import annotations

import importlib.util
import os
import socket

import click

from tripartite.cli.common import App, pass_app
from tripartite.infra.errors import TripartiteError


@click.command("ui")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Where to listen; any address beyond this machine needs TRIPARTITE_UI_TOKEN.")
@click.option("--port", type=click.IntRange(1, 65535), default=8770, show_default=True, help="The port to serve on.")
@click.option("--browser", "browser", metavar="URL", default=None,
              help="Neo4j Browser's address for the page's links (default: the Bolt host, the local server's HTTP port).")
@click.option("--offline", is_flag=True,
              help="The question box's builders read questions offline even when an LLM is configured (no LLM calls).")
@pass_app
def ui_command(app: App, host: str, port: int, browser: str | None, offline: bool) -> None:
    """Serve a read-only web page that explains prompts: an object's text with its concepts
    marked, its prompt, why each extract was chosen (w, P_c, alpha, beta, floor), each concept's
    distribution of w, and a question box that runs the five builders side by side.

    An object's page is at /objects/ID. Loopback only, unless TRIPARTITE_UI_TOKEN is set: then
    readers open the page once with ?token=... (a cookie keeps it) or send it as a bearer token."""
    for module in ("starlette", "uvicorn"):
        if importlib.util.find_spec(module) is None:
            raise TripartiteError(f"the web page needs {module}: pip install 'tripartite-graphrag[ui]'")
    from tripartite.serving.web.access import TOKEN_VARIABLE, require_token_beyond_loopback
    from tripartite.serving.web.app import serve

    token = os.environ.get(TOKEN_VARIABLE) or None
    require_token_beyond_loopback(host, token)  # refused before it says it serves
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise TripartiteError(f"cannot serve on {host}:{port} ({exc.strerror}); choose another with --port") from None

    def ready(url: str) -> None:
        calls = "" if offline or not app.settings.llm.configured else \
            f"; the question box calls the configured LLM ({app.settings.llm.model}; --offline does not)"
        click.echo(f"serving the explanation page at {url}" + (" (token required)" if token else "") + calls
                   + "; Ctrl-C stops it", err=True)
    serve(app.settings, host, port, token, browser, ready=ready, offline=offline)


COMMANDS = [ui_command]
