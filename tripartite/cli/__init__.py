"""The `tripartite` command line: one module per group of commands, each command only
wiring and printing (common.py holds what they share)."""
from __future__ import annotations

import logging
import traceback

import click

from tripartite import __version__
from tripartite.cli import (analysis, batches, evaluation, kg, lexical, mcp, objects, ontology, search, selection,
                            server, setup)
from tripartite.cli.common import App
from tripartite.infra.config import mask_userinfo
from tripartite.infra.errors import ServerError, TripartiteError
from tripartite.infra.graph import neo4j_error_line


def _is_neo4j_error(exc: BaseException) -> bool:
    """A Neo4j or driver failure (the driver is imported only once a command used it)."""
    import sys

    if isinstance(exc, ConnectionError):
        return True
    errors = sys.modules.get("neo4j.exceptions")
    return errors is not None and isinstance(exc, (errors.Neo4jError, errors.DriverError))


class TripartiteGroup(click.Group):
    """Ends every failure in one line on stderr and exit code 1: a TripartiteError with its
    own message, a Neo4j error in the middle of a command with what happened and the fix.
    With --debug the traceback follows."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except TripartiteError as exc:
            self._fail(ctx, str(exc), exc)
            if isinstance(exc, ServerError) and exc.log_tail:
                click.echo("---- end of the server log ----", err=True)
                click.echo(exc.log_tail, err=True)
            ctx.exit(1)
        except Exception as exc:
            if not _is_neo4j_error(exc):
                raise
            app = ctx.find_object(App)
            uri, database = "the configured server", "neo4j"
            if app is not None:
                try:
                    uri, database = app.settings.neo4j_uri_shown, app.settings.neo4j_database
                except TripartiteError:
                    pass
            self._fail(ctx, neo4j_error_line(exc, uri, database), exc)
            ctx.exit(1)

    @staticmethod
    def _fail(ctx: click.Context, line: str, exc: BaseException) -> None:
        click.echo(f"error: {mask_userinfo(line)}", err=True)
        app = ctx.find_object(App)
        if app is not None and app.debug:
            click.echo("".join(traceback.format_exception(exc)), err=True)


@click.group(cls=TripartiteGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="tripartite")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), envvar="TRIPARTITE_CONFIG",
              help="tripartite.toml to use (default: the nearest one upward from here).")
@click.option("--debug", is_flag=True, envvar="TRIPARTITE_DEBUG", help="Print the traceback under an error line.")
@click.pass_context
def cli(ctx: click.Context, config_path: str | None, debug: bool) -> None:
    """Tripartite-GraphRAG: ontology-anchored GraphRAG in Neo4j."""
    ctx.obj = App(ctx, config_path, debug)


for module in (server, setup, lexical, ontology, objects, analysis, selection, search, kg, batches, evaluation,
               mcp):
    for command in module.COMMANDS:
        cli.add_command(command)


def main() -> None:
    # The driver logs retries and server notifications as warnings; the CLI reports
    # failures itself, as one line each.
    logging.getLogger("neo4j").addHandler(logging.NullHandler())
    logging.getLogger("neo4j").propagate = False
    cli(prog_name="tripartite")
