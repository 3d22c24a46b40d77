"""How fast the command line answers what needs no database: `--help`, a group's and a
command's help, and argument errors, against the start of a bare `python3 -c "import click"`
(the target: within 3x). Prints a table; asserts nothing.

    python bench/cli_bench.py [--runs 9]

Every command runs in a fresh process, as a user runs it, through the same interpreter as
the baseline (the `tripartite` script on PATH may add a shim of its own: its row is shown too).
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time

CASES = [
    ("python3 -c 'import click' (the baseline)", [sys.executable, "-c", "import click"]),
    ("tripartite --help", [sys.executable, "-m", "tripartite", "--help"]),
    ("tripartite kg --help", [sys.executable, "-m", "tripartite", "kg", "--help"]),
    ("tripartite search local --help", [sys.executable, "-m", "tripartite", "search", "local", "--help"]),
    ("tripartite select --alpha 2 (an argument error)", [sys.executable, "-m", "tripartite", "select", "--alpha", "2"]),
    ("tripartite nosuchcommand (an argument error)", [sys.executable, "-m", "tripartite", "nosuchcommand"]),
]


def seconds(command: list[str], runs: int) -> float:
    """The median wall time of `runs` runs (after one warm-up run that fills the OS's caches)."""
    subprocess.run(command, capture_output=True)
    timings = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(command, capture_output=True)
        timings.append(time.perf_counter() - started)
    return statistics.median(timings)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    cases = list(CASES)
    script = shutil.which("tripartite")
    if script:
        cases.append(("`tripartite --help` through the script on PATH", [script, "--help"]))
    results = [(name, seconds(command, args.runs)) for name, command in cases]
    baseline = results[0][1]
    print(f"\nCommand-line start-up, median of {args.runs} runs each (target: within 3x the baseline)\n")
    print("| command | seconds | x baseline | within 3x |")
    print("|---|---:|---:|---|")
    for name, value in results:
        ratio = value / baseline
        print(f"| {name} | {value:.3f} | {ratio:.1f}x | {'yes' if ratio <= 3 else 'NO'} |")


if __name__ == "__main__":
    main()
