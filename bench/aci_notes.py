"""Clinical notes the method has never seen, as objects: ACI-BENCH's notes (github: wyim/aci-bench,
CC BY 4.0) cut before their assessment and plan, as ../shared/corpus/anamneses holds the train and
valid splits' (the plan is what a prompt is for; a note that carries it gives the answer away).

    git clone https://github.com/wyim/aci-bench
    python3 bench/aci_notes.py aci-bench/data/challenge_data/clinicalnlp_taskB_test1.csv --out unseen-notes
    tripartite eval ../shared/corpus/guidelines/*.md ../shared/corpus/ontology.yaml unseen-notes \\
        --kind anamnesis --reset --max-tokens 800 --out unseen-eval

Writes one Markdown file per encounter (aci-<split>-<encounter id>.md); the notes stay outside the
repository.
"""
from __future__ import annotations

import argparse
import csv
import re
import sys
from pathlib import Path

PLAN = re.compile(r"\n\s*ASSESSMENT(?: AND PLAN)?\b")  # the heading the plan starts under
MIN_CHARS = 200  # a note with less than this before its plan says too little to be an object


def notes(csv_path: Path) -> list[tuple[str, str]]:
    """(encounter id, the note before its plan) for each encounter of one ACI-BENCH split."""
    with csv_path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    if not rows or not {"encounter_id", "note"} <= set(rows[0]):
        raise SystemExit(f"{csv_path}: not an ACI-BENCH split (it needs the columns encounter_id and note)")
    cut = [(row["encounter_id"], PLAN.split(row["note"], maxsplit=1)[0].strip()) for row in rows]
    return [(encounter, text) for encounter, text in cut if len(text) >= MIN_CHARS]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", type=Path, help="an ACI-BENCH split, e.g. data/challenge_data/clinicalnlp_taskB_test1.csv")
    parser.add_argument("--out", type=Path, required=True, help="folder to write the notes to")
    args = parser.parse_args(argv)
    if not args.csv.is_file():
        raise SystemExit(f"{args.csv}: no such file; clone github.com/wyim/aci-bench and name one of its "
                         "data/challenge_data/*.csv")
    split = args.csv.stem.split("_")[-1]  # clinicalnlp_taskB_test1 -> test1
    args.out.mkdir(parents=True, exist_ok=True)
    written = notes(args.csv)
    for encounter, text in written:
        (args.out / f"aci-{split}-{encounter}.md").write_text(text + "\n", encoding="utf-8")
    print(f"{len(written)} notes written to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
