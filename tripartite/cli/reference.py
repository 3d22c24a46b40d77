"""The CLI reference in docs/cli.md, written from the commands themselves (their help and
options), so it cannot fall behind them: `python -m tripartite.cli.reference --write docs/cli.md`
rewrites the part between its markers, and a test checks that it is current."""
from __future__ import annotations

import sys
from pathlib import Path

import click

BEGIN = "<!-- every command and option: written by `python -m tripartite.cli.reference --write docs/cli.md` -->"
END = "<!-- end of the written reference -->"


def _commands(command: click.Command, path: tuple[str, ...]):
    """(path, command) for every command under `command`, depth first, by name."""
    if isinstance(command, click.Group):
        for name in sorted(command.commands):
            yield from _commands(command.commands[name], (*path, name))
    else:
        yield path, command


def _section(path: tuple[str, ...], command: click.Command) -> list[str]:
    name = " ".join(("tripartite", *path))
    context = click.Context(command, info_name=name)
    usage = " ".join([name, *command.collect_usage_pieces(context)])
    lines = [f"### `{name}`", "", f"`{usage}`", ""]
    help_text = (command.help or "").strip()
    if help_text:
        lines += [" ".join(help_text.split("\n\n")[0].split()), ""]
    options = [param.get_help_record(context) for param in command.params
               if isinstance(param, click.Option) and param.name != "help"]
    lines += [f"- `{names}`" + (f": {' '.join(text.split())}" if text else "") for names, text in filter(None, options)]
    return lines + [""] if lines[-1] else lines


def reference(cli: click.Group) -> str:
    lines: list[str] = []
    for path, command in _commands(cli, ()):
        if not command.hidden:
            lines += _section(path, command)
    return "\n".join(lines).rstrip() + "\n"


def written(document: str, cli: click.Group) -> str:
    """`document` with its reference part rewritten."""
    head, found, rest = document.partition(BEGIN)
    if not found or END not in rest:
        raise click.ClickException(f"the markers of the written reference are missing: {BEGIN} ... {END}")
    return f"{head}{BEGIN}\n\n{reference(cli)}\n{END}{rest.split(END, 1)[1]}"


def main(argv: list[str]) -> int:
    from tripartite.cli import cli

    if len(argv) != 2 or argv[0] != "--write":
        print("usage: python -m tripartite.cli.reference --write docs/cli.md", file=sys.stderr)
        return 2
    target = Path(argv[1])
    target.write_text(written(target.read_text(encoding="utf-8"), cli), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
