"""The `tripartite` command line: one module per group of commands, each command only
wiring and printing (common.py holds what they share)."""
from __future__ import annotations

import logging

import click

from tripartite import __version__
from tripartite.cli import analysis, evaluation, lexical, objects, ontology, search, selection, server, setup
from tripartite.cli.common import App
from tripartite.infra.errors import ServerError, TripartiteError


class TripartiteGroup(click.Group):
    """Turns a TripartiteError anywhere below into one line on stderr and exit code 1."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except TripartiteError as exc:
            click.echo(f"error: {exc}", err=True)
            if isinstance(exc, ServerError) and exc.log_tail:
                click.echo("---- end of the server log ----", err=True)
                click.echo(exc.log_tail, err=True)
            ctx.exit(1)


@click.group(cls=TripartiteGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="tripartite")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), envvar="TRIPARTITE_CONFIG",
              help="tripartite.toml to use (default: the nearest one upward from here).")
@click.pass_context
def cli(ctx: click.Context, config_path: str | None) -> None:
    """Tripartite-GraphRAG: ontology-anchored GraphRAG in Neo4j."""
    ctx.obj = App(ctx, config_path)


for module in (server, setup, lexical, ontology, objects, analysis, selection, search, evaluation):
    for command in module.COMMANDS:
        cli.add_command(command)


def main() -> None:
    # The driver logs retries and server notifications as warnings; the CLI reports
    # failures itself, as one line each.
    logging.getLogger("neo4j").addHandler(logging.NullHandler())
    logging.getLogger("neo4j").propagate = False
    cli(prog_name="tripartite")
