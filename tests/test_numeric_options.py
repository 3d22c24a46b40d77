"""Every number the command line takes refuses nan and inf: float() reads both, and no range
check catches nan (every comparison with it is false), so `--alpha nan` would run a sweep of
nothing and `--alpha 0.9,nan` would drop the nan without a word. The options are found on the
commands themselves, so a new one is checked too. Should a value pass by mistake, the command
finds no database: NEO4J_URI names a port nobody listens on."""
import click
import pytest
from click.testing import CliRunner

from tripartite.cli import cli


def number_options(group: click.Group, path: tuple[str, ...] = ()):
    """(command path, option, the command's required arguments) for every option that takes a
    float or a list of numbers."""
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            yield from number_options(command, path + (name,))
            continue
        arguments = tuple("x" for p in command.params if isinstance(p, click.Argument) and p.required
                          for _ in range(max(p.nargs, 1)))
        for param in command.params:
            if not isinstance(param, click.Option) or param.is_flag:
                continue
            listed = "number_list" in getattr(param.callback, "__qualname__", "")
            if isinstance(param.type, click.types.FloatParamType) or listed:
                yield path + (name,), param.opts[0], arguments


@pytest.fixture
def nowhere(tmp_path):
    return {"NEO4J_URI": "bolt://127.0.0.1:9", "TRIPARTITE_CONFIG": "",
            "TRIPARTITE_SERVER_HOME": str(tmp_path / "home"), "TRIPARTITE_LLM_CACHE": str(tmp_path / "llm-cache.sqlite")}


OPTIONS = sorted(number_options(cli))


def test_the_number_options_are_found():
    found = {(" ".join(path), option) for path, option, _ in OPTIONS}
    assert {("tune", "--alpha"), ("tune", "--coverage"), ("select", "--alpha"), ("kg extract", "--min-similarity"),
            ("ingest", "--max-mb"), ("eval", "--sweep-alpha")} <= found


@pytest.mark.parametrize("path, option, arguments", OPTIONS, ids=[" ".join(p) + " " + o for p, o, _ in OPTIONS])
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "0.9,nan", "NaN"])
def test_nan_and_inf_are_one_usage_line(nowhere, path, option, arguments, value):
    result = CliRunner().invoke(cli, [*path, option, value, *arguments], env=nowhere, prog_name="tripartite")
    assert result.exit_code == 2 and result.stdout == "", result.output
    assert result.stderr.startswith("error: Invalid value for ") and result.stderr.count("\n") == 1, result.stderr
    assert option in result.stderr and value.split(",")[-1].lower() in result.stderr.lower()
    assert f"usage: tripartite {' '.join(path)} " in result.stderr


def test_every_float_option_takes_the_finite_type():
    from tripartite.cli.common import FiniteFloat, FiniteFloatRange

    for path, option, _ in OPTIONS:
        command = cli
        for name in path:
            command = command.commands[name]
        param = next(p for p in command.params if option in p.opts)
        if isinstance(param.type, click.types.FloatParamType):
            assert isinstance(param.type, (FiniteFloat, FiniteFloatRange)), (path, option)


def test_tune_names_the_nan_it_refuses(nowhere):
    result = CliRunner().invoke(cli, ["tune", "--alpha", "0.9,nan"], env=nowhere, prog_name="tripartite")
    assert result.stderr.startswith("error: Invalid value for --alpha: nan is not a finite number; use 0 to 1 "
                                    "(usage: tripartite tune [OPTIONS];"), result.stderr
