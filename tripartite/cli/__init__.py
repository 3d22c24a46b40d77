"""The `tripartite` command line: one module per group of commands, each command only
wiring and printing (common.py holds what they share)."""
from __future__ import annotations

import logging
import os
import select
import sys
import traceback

import click

from tripartite import __version__
from tripartite.cli import (analysis, ask, batches, evaluation, kg, lexical, mcp, objects, ontology, search, selection,
                            server, setup, tune, ui)
from tripartite.cli.common import App
from tripartite.infra.errors import ServerError, TripartiteError
from tripartite.infra.graph import neo4j_error_line
from tripartite.infra.secrets import redact


def _is_neo4j_error(exc: BaseException) -> bool:
    """A Neo4j or driver failure (the driver is imported only once a command used it)."""
    if isinstance(exc, ConnectionError):
        return True
    errors = sys.modules.get("neo4j.exceptions")
    return errors is not None and isinstance(exc, (errors.Neo4jError, errors.DriverError))


def stdout_closed() -> bool:
    """Whether whoever read our standard output has gone (`tripartite ... | head -1`): a pipe
    whose reader closed polls as an error."""
    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), 0)
        return any(events & select.POLLERR for _, events in poller.poll(0))
    except (AttributeError, OSError, ValueError):  # no real file behind sys.stdout (a test's capture)
        return False


def _quiet_stdout() -> None:
    # nothing more can reach the reader; /dev/null keeps the interpreter's last flush from failing
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, sys.stdout.fileno())


def _is_llm_error(exc: BaseException) -> bool:
    """A failed LLM call (the providers module is imported only once a command used one)."""
    providers = sys.modules.get("tripartite.infra.llm.providers")
    return providers is not None and isinstance(exc, (providers.ProviderError, providers.RetryableError))


def report_usage_error(exc: click.UsageError) -> None:
    """A group called without a command shows its help, as click does; any other usage error is
    one line on stderr."""
    if isinstance(exc, getattr(click.exceptions, "NoArgsIsHelpError", ())):
        exc.show()
    else:
        click.echo(f"error: {usage_line(exc)}", err=True)


def usage_line(exc: click.UsageError) -> str:
    """Click's three-line usage error as one: what is wrong, the usage, where the help is."""
    message = " ".join(exc.format_message().split())
    if exc.ctx is None:
        return message
    usage = " ".join(exc.ctx.get_usage().split()).removeprefix("Usage: ")
    return f"{message.rstrip('.')} (usage: {usage}; `{exc.ctx.command_path} --help` says more)"


class TripartiteGroup(click.Group):
    """Ends every failure in one line on stderr and exit code 1: a TripartiteError with its
    own message, a Neo4j error in the middle of a command with what happened and the fix.
    With --debug the traceback follows."""

    def make_context(self, info_name, args, parent=None, **extra) -> click.Context:
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.UsageError as exc:  # the top-level options (`tripartite --bogus`)
            report_usage_error(exc)
            sys.exit(exc.exit_code)

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except click.UsageError as exc:  # a subcommand's arguments: one line too, with its usage
            report_usage_error(exc)
            ctx.exit(exc.exit_code)
        except TripartiteError as exc:
            self._fail(ctx, str(exc), exc)
            if isinstance(exc, ServerError) and exc.log_tail:
                click.echo("---- end of the server log ----", err=True)
                click.echo(exc.log_tail, err=True)
            ctx.exit(1)
        except Exception as exc:
            if isinstance(exc, BrokenPipeError) and stdout_closed():
                # the reader stopped reading, as `head` does: not a lost Neo4j connection (BrokenPipeError
                # is a ConnectionError), and what the command had committed stays committed
                _quiet_stdout()
                ctx.exit(1)
            if _is_llm_error(exc):  # a call no command caught: still one line
                self._fail(ctx, f"the LLM call failed: {exc}; `tripartite doctor` checks the endpoint and model", exc)
                ctx.exit(1)
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
        click.echo(f"error: {redact(line)}", err=True)
        app = ctx.find_object(App)
        if app is not None and app.debug:
            click.echo(redact("".join(traceback.format_exception(exc))), err=True)


@click.group(cls=TripartiteGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="tripartite")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), envvar="TRIPARTITE_CONFIG",
              help="tripartite.toml to use (default: the nearest one upward from here).")
@click.option("--debug", is_flag=True, envvar="TRIPARTITE_DEBUG", help="Print the traceback under an error line.")
@click.pass_context
def cli(ctx: click.Context, config_path: str | None, debug: bool) -> None:
    """Tripartite-GraphRAG: ontology-anchored GraphRAG in Neo4j."""
    ctx.obj = App(ctx, config_path, debug)


for module in (server, setup, lexical, ontology, objects, analysis, selection, ask, search, kg, batches, evaluation,
               tune, mcp, ui):
    for command in module.COMMANDS:
        cli.add_command(command)


def main() -> None:
    # The driver logs retries and server notifications as warnings; the CLI reports
    # failures itself, as one line each.
    logging.getLogger("neo4j").addHandler(logging.NullHandler())
    logging.getLogger("neo4j").propagate = False
    cli(prog_name="tripartite")
