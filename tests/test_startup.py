"""The CLI starts fast: help and argument errors import none of the heavy libraries, which only
the commands that use them load (bench/cli_bench.py times it)."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ["neo4j", "numpy", "openai", "onnxruntime", "neo4j_graphrag", "yaml", "mcp", "pydantic"]

PROBE = """
import json, sys
from tripartite.cli import main
sys.argv = ["tripartite", *sys.argv[1:]]
try:
    main()
except SystemExit as exit:
    code = exit.code
print(json.dumps({"code": code, "loaded": sorted(m for m in %r if m in sys.modules)}), file=sys.stderr)
""" % (HEAVY,)


@pytest.mark.parametrize("args, code", [(["--help"], 0), (["kg", "--help"], 0), (["search", "local", "--help"], 0),
                                        (["select", "--bogus"], 2), (["prompt"], 2)])
def test_help_and_argument_errors_load_no_heavy_library(args, code):
    run = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=60)
    report = json.loads(run.stderr.strip().splitlines()[-1])
    assert report == {"code": code, "loaded": []}, run.stderr


def test_the_cli_reference_names_every_command_and_option_as_it_is():
    from tripartite.cli import cli
    from tripartite.cli.reference import written

    document = (Path(__file__).resolve().parent.parent / "docs" / "cli.md").read_text(encoding="utf-8")
    assert written(document, cli) == document, "docs/cli.md is behind the commands: python -m tripartite.cli.reference --write docs/cli.md"


@pytest.mark.parametrize("args, says", [
    (["--bogus"], "No such option '--bogus' (usage: tripartite [OPTIONS] COMMAND [ARGS]...; `tripartite --help`"),
    (["kgg"], "No such command 'kgg'. Did you mean 'kg'?"),
    (["prompt"], "Missing argument 'OBJECT_ID' (usage: tripartite prompt [OPTIONS] OBJECT_ID;"),
    (["ontology", "import", "x.obo", "--root", "A", "--name", "b", "--depth", "0"],
     "Invalid value for '--depth': 0 is not in the range x>=1 (usage: tripartite ontology import"),
    (["tune", "--forget", "--store"], "give --store or --forget, not both (usage: tripartite tune"),
])
def test_an_argument_error_is_one_line_naming_the_usage(args, says):
    from click.testing import CliRunner
    from tripartite.cli import cli

    result = CliRunner().invoke(cli, args, prog_name="tripartite")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith(f"error: {says}") and result.stderr.count("\n") == 1, result.stderr


def test_a_group_without_a_command_shows_its_help():
    from click.testing import CliRunner
    from tripartite.cli import cli

    result = CliRunner().invoke(cli, ["kg"])
    assert result.exit_code == 2 and "Commands:" in result.output and "extract" in result.output
