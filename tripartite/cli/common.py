"""What every command shares: the settings, the database connection, --json output,
option checks, and one line per error."""
from __future__ import annotations

import functools
import json
import math
import sys
import time
from typing import TYPE_CHECKING, Any, Callable, Iterable

import click

from tripartite.infra.config import Settings, load_settings
from tripartite.infra.secrets import redact

if TYPE_CHECKING:
    from tripartite.infra.graph import Graph


SELF_MIGRATING = {"migrate", "demo", "eval"}  # commands that apply pending migrations themselves


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
        """The database, refused with one line while migrations are pending, except to the
        commands that apply them (migrate, and demo and eval, which run the whole pipeline)."""
        if self._graph is None:
            from tripartite.infra.graph import connect
            from tripartite.infra.migrations import require_current

            graph = self._ctx.with_resource(connect(self.settings))
            if self._ctx.invoked_subcommand not in SELF_MIGRATING:
                require_current(graph, self.settings.migrations_dir)
            self._graph = graph
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
        click.echo(redact(message), err=True)


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


class _Finite:
    """Refuses nan and inf: float() reads both, and no range check catches nan (every comparison
    with it is false), so `--alpha nan` would run on as if nothing were asked."""

    def convert(self, value, param, ctx):
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{number} is not a finite number", param, ctx)
        return number


class FiniteFloat(_Finite, click.types.FloatParamType):
    """The type of every float option."""


class FiniteFloatRange(_Finite, click.FloatRange):
    """The type of every float option with bounds."""


FINITE = FiniteFloat()


def question_option(command):
    return click.option("--question", default=None,
                        help="The question about the object (default: its ontology plugin's).")(command)


def probability(name: str):
    """An option callback: a number from 0 to 1 (None passes; nan fails the test too)."""
    def check(ctx, param, value):
        if value is not None and not 0.0 <= value <= 1.0:
            raise click.BadParameter(f"{value} is not a probability; use 0 to 1", param_hint=name)
        return value
    return check


def number_list(kind: type, name: str, allow_none: bool = False, low: float | None = None,
                high: float | None = None):
    """An option callback: comma-separated finite numbers, each within [low, high]."""
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
            if not math.isfinite(v) or (low is not None and v < low) or (high is not None and v > high):
                problem = "is out of range" if math.isfinite(v) else "is not a finite number"
                raise click.BadParameter(f"{v:g} {problem}; use {_bounds(low, high)}", param_hint=name)
        return tuple(dict.fromkeys(values))  # a value given twice is measured once
    return parse


def _bounds(low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return f"{low:g} to {high:g}"
    if low is not None:
        return f"at least {low:g}"
    return f"at most {high:g}" if high is not None else "a finite number"


def budget_list(name: str):
    """Comma-separated token budgets, where 'none' means no budget."""
    def parse(ctx, param, value: str):
        values = []
        for v in (x.strip() for x in value.split(",") if x.strip()):
            if v.lower() == "none":
                values.append(None)
                continue
            try:
                values.append(int(v))
            except ValueError:
                raise click.BadParameter(f"{v!r}: give token counts or 'none', e.g. none,800,1500", param_hint=name) from None
            if values[-1] < 1:
                raise click.BadParameter(f"{v} is out of range; use at least 1", param_hint=name)
        return tuple(values)
    return parse


class LineProgress:
    """Progress as a line every `every` seconds (and at the end), for stderr that is not a
    terminal: a log file or CI, where a bar prints once and then nothing for an hour."""

    def __init__(self, label: str, length: int, every: float, clock: Callable[[], float] = time.monotonic):
        self.label, self.length, self.every, self.clock = label, length, every, clock
        self.done = self.shown = 0
        self.started = self.last = clock()

    def __enter__(self) -> "LineProgress":
        click.echo(f"{self.label}: 0/{self.length}", err=True)
        return self

    def update(self, n: int) -> None:
        self.done += n
        if self.clock() - self.last >= self.every:
            self._line()

    def _line(self) -> None:
        self.last, self.shown = self.clock(), self.done
        elapsed = self.last - self.started
        share = self.done / self.length if self.length else 1.0
        left = f", about {elapsed / share - elapsed:,.0f} s left" if 0 < share < 1 else ""
        click.echo(f"{self.label}: {self.done}/{self.length} ({share:.0%}) after {elapsed:,.0f} s{left}", err=True)

    def __exit__(self, *exc) -> None:
        if self.done != self.shown and self.clock() - self.started >= self.every:
            self._line()


def progress(label: str, length: int, hidden: bool = False):
    """A progress bar on stderr, or periodic lines when stderr is not a terminal (none with
    --json). TRIPARTITE_PROGRESS_SECONDS sets the period of the lines."""
    app = _current_app()
    hidden = hidden or length == 0 or (app is not None and app.quiet)
    if not hidden and not sys.stderr.isatty():
        return LineProgress(label, length, (app.settings if app is not None else Settings).progress_seconds)
    return click.progressbar(length=length, label=label, file=sys.stderr, hidden=hidden)


ACCOUNTING_COLUMNS = (("tasks", "tasks"), ("calls", "calls"), ("cached", "cache_hits"), ("retries", "retries"),
                      ("repairs", "repairs"), ("failed", "failures"), ("cut", "truncated"), ("timeouts", "timeouts"),
                      ("dropped", "dropped"), ("clipped", "clipped"), ("prompt tok", "prompt_tokens"), ("completion", "completion_tokens"))


def accounting_lines(stages: dict[str, dict]) -> list[str]:
    """The runner's accounting per stage as a table: cut are answers stopped at max_tokens (or
    at the bytes an answer that long can take), dropped are answer items naming no offered
    concept or past the most the answer may hold, clipped are answer texts cut to their
    longest allowed; completion tokens of timed-out
    requests are estimated (marked ~)."""
    lines = ["stage   " + " ".join(f"{name:>{max(6, len(name))}}" for name, _ in ACCOUNTING_COLUMNS)]
    for stage, st in stages.items():
        cells = []
        for name, key in ACCOUNTING_COLUMNS:
            value = f"{st.get(key, 0)}"
            if key == "completion_tokens" and st.get("estimated_tokens"):
                value = f"~{value}"
            cells.append(f"{value:>{max(6, len(name))}}")
        lines.append(f"{stage:<7} " + " ".join(cells))
    if any(st.get("estimated_tokens") for st in stages.values()):
        lines.append("~ includes an estimate of what timed-out requests generated before they were abandoned")
    return lines


def concurrency_option(command):
    return click.option("--concurrency", type=click.IntRange(min=1), default=None,
                        help="LLM calls in flight at once (default: [llm] concurrency or TRIPARTITE_LLM_CONCURRENCY, "
                             "else 4; never more than the server's slots where it reports them).")(command)
