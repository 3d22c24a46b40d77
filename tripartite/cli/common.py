"""What every command shares: the settings, the database connection, --json output,
option checks, and one line per error."""
from __future__ import annotations

import functools
import json
import sys
from typing import Any, Callable, Iterable

import click

from tripartite.infra.config import Settings, load_settings
from tripartite.infra.graph import Graph, connect


class App:
    """The command line's state: settings read once, a database connection opened on first
    use and closed when the command ends."""

    def __init__(self, ctx: click.Context, config_path: str | None, debug: bool = False):
        self.config_path = config_path
        self.debug = debug
        self.quiet = False  # --json: stdout is the result, and nothing else is printed
        self._ctx = ctx
        self._settings: Settings | None = None
        self._graph: Graph | None = None

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            self._settings = load_settings(self.config_path)
        return self._settings

    @property
    def graph(self) -> Graph:
        if self._graph is None:
            self._graph = self._ctx.with_resource(connect(self.settings))
        return self._graph


pass_app = click.make_pass_decorator(App)


def emit_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, default=str, ensure_ascii=False))


def _current_app() -> App | None:
    ctx = click.get_current_context(silent=True)
    return ctx.find_object(App) if ctx else None


def say(message: str) -> None:
    """Progress and notes go to stderr, so stdout stays the command's result; with --json
    there are none."""
    app = _current_app()
    if app is None or not app.quiet:
        click.echo(message, err=True)


def output(render: Callable[[Any], Iterable[str]] | None = None,
           exit_code: Callable[[Any], int] = lambda data: 0, formats: bool = False):
    """--json for scripts (or --format text|json when `formats`): the command returns its
    data, which is printed as JSON or as the lines `render` makes of it."""
    def decorate(command: Callable) -> Callable:
        @functools.wraps(command)
        def wrapper(*args, as_json: bool = False, fmt: str = "text", **kwargs):
            app = _current_app()
            if app is not None:
                app.quiet = as_json or fmt == "json"
            data = command(*args, **kwargs)
            if as_json or fmt == "json":
                emit_json(data)
            elif render is not None:
                for line in render(data):
                    click.echo(line)
            code = exit_code(data)
            if code:
                sys.exit(code)
        if formats:
            option = click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
                                  show_default=True, help="text for people, json for scripts.")
        else:
            option = click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
        return option(wrapper)
    return decorate


def rows_or_hint(empty: str, line: Callable[[dict], str]) -> Callable[[list[dict]], Iterable[str]]:
    """A listing's text form: one line per row, or a hint when there are none."""
    def render(rows: list[dict]) -> Iterable[str]:
        return [line(row) for row in rows] if rows else [empty]
    return render


def probability(name: str):
    """An option callback: a number from 0 to 1 (None passes)."""
    def check(ctx, param, value):
        if value is not None and not 0.0 <= value <= 1.0:
            raise click.BadParameter(f"{value} is not a probability; use 0 to 1", param_hint=name)
        return value
    return check


def number_list(kind: type, name: str, allow_none: bool = False, low: float | None = None,
                high: float | None = None):
    """An option callback: comma-separated numbers, each within [low, high]."""
    def parse(ctx, param, value: str):
        if allow_none and value.strip().lower() == "none":
            return ()
        try:
            values = tuple(kind(v) for v in value.split(",") if v.strip())
        except ValueError:
            raise click.BadParameter(f"{value!r}: give comma-separated numbers, e.g. 1,3,5", param_hint=name) from None
        if not values:
            raise click.BadParameter("give at least one value", param_hint=name)
        for v in values:
            if (low is not None and v < low) or (high is not None and v > high):
                bounds = f"{low:g} to {high:g}" if high is not None else f"at least {low:g}"
                raise click.BadParameter(f"{v:g} is out of range; use {bounds}", param_hint=name)
        return values
    return parse


def progress(label: str, length: int, hidden: bool = False):
    """A progress bar on stderr (none with --json)."""
    app = _current_app()
    hidden = hidden or length == 0 or (app is not None and app.quiet)
    return click.progressbar(length=length, label=label, file=sys.stderr, hidden=hidden)
