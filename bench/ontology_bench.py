"""A large published ontology through the pipeline: `ontology import` of a branch, `ontology
load`, and `analyze --dry-run` twice (the first embeds every concept's gloss once and keeps it;
the second reads them back), each as a user runs it, in a fresh process. Prints a table with
the times and the dry run's calls and prompt tokens; asserts nothing.

    python bench/ontology_bench.py FILE ROOT [--name NAME]

FILE is any OBO, OWL, SKOS or CSV file (e.g. the Human Disease Ontology's NCIthesaurus.obo
subset, 4,757 terms, with ROOT DOID:4). Load and the dry runs use the configured database,
which should hold documents (e.g. the built-in sample: `tripartite ingest samples/guidelines`);
the ontology is removed again at the end.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def timed(args: list[str]) -> tuple[float, dict]:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "tripartite", *args, "--json"], capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode:
        sys.exit(f"tripartite {' '.join(args)} failed: {done.stderr.strip()}")
    return elapsed, json.loads(done.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("root")
    parser.add_argument("--name", default="bench-large")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as out:
        seconds, imported = timed(["ontology", "import", str(args.file), "--root", args.root, "--name", args.name,
                                   "--out", out])
        rows.append((f"ontology import ({imported['concepts']:,} concepts, {imported['classes']} classes, "
                     f"{imported['terms_read']:,} terms read)", seconds, ""))
        seconds, _ = timed(["ontology", "load", imported["folder"], "--force"])
        rows.append(("ontology load", seconds, ""))
        try:
            for run in ("first", "second"):
                seconds, dry = timed(["analyze", "--dry-run", "--ontology", args.name])
                cost = (f"chunk calls {dry['chunk']['calls']:,} ({dry['chunk']['prompt_tokens']:,} tokens), "
                        f"object calls {dry['object']['calls']:,} ({dry['object']['prompt_tokens']:,} tokens), "
                        f"pairs {dry['pairs']['naive_calls']:,} -> {dry['pairs']['after_prefilter']:,}")
                rows.append((f"analyze --dry-run, {run}", seconds, cost))
        finally:
            timed(["ontology", "remove", args.name])
    print("| step | seconds | dry run's cost |\n|---|---:|---|")
    for step, seconds, cost in rows:
        print(f"| {step} | {seconds:.1f} | {cost} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
