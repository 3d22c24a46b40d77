"""The ontology readers on published files: time and memory of each read, OBO against OWL on
the same content, and what each reader found (terms, cross-references, synonyms, the lines it
reported). Each file is read in a fresh process, so imports count and one read's memory does
not hide another's. Prints two tables and each file's report; asserts nothing.

    python bench/ontology_readers_bench.py [--corpus /work/corpora/doid] [--runs 3] [FILE ...]

Without FILEs: the Human Disease Ontology's cancer and infectious-disease slims (as .obo and
.owl, the same release) and the 2015 doid.obo. Time: the first read (which imports the
reader's parser: fastobo, expat or rdflib) and the best of --runs reads; memory: the peak
resident set of the process above what it held before the first read.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

DEFAULT_FILES = ["DO_cancer_slim.obo", "DO_cancer_slim.owl", "DO_infectious_disease_slim.obo",
                 "DO_infectious_disease_slim.owl", "doid-2015-11-25.obo"]

# Run in the child: reads the file `runs` times and prints one JSON object.
CHILD = r"""
import json, resource, sys, time
from pathlib import Path
from tripartite.ontology.sources import read_terms

path, runs = Path(sys.argv[1]), int(sys.argv[2])
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
times, terms, error = [], None, ""
for _ in range(runs):
    started = time.perf_counter()
    try:
        terms = read_terms(path, max_mb=1024)
    except Exception as exc:
        error = str(exc)[:200]
        break
    times.append(time.perf_counter() - started)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
live = [t for t in (terms or {}).values() if not t.obsolete]
print(json.dumps({
    "first": times[0] if times else None, "best": min(times) if times else None,
    "before_mb": before / 1024, "growth_mb": (peak - before) / 1024, "error": error,
    "terms": len(terms or {}), "live": len(live),
    "xrefs": sum(len(getattr(t, "xrefs", ())) for t in live),
    "exact": sum(len(t.exact) for t in live), "related": sum(len(t.related) for t in live),
    "abbreviations": sum(len(getattr(t, "abbreviations", ())) for t in live),
    "definitions": sum(1 for t in live if t.definition),
    "problems": list(getattr(terms, "problems", []))}))
"""


def measure(path: Path, runs: int) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD, str(path), str(runs)], capture_output=True, text=True)
    if done.returncode:
        return {"error": done.stderr.strip().splitlines()[-1][:200] if done.stderr.strip() else "failed"}
    return json.loads(done.stdout)


def seconds(value) -> str:
    return "-" if value is None else f"{value:.3f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--corpus", type=Path, default=Path("/work/corpora/doid"))
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    files = args.files or [args.corpus / name for name in DEFAULT_FILES]
    results = {path: measure(path, args.runs) for path in files}
    print("| file | MB | first read s | best read s | memory growth MB | x OBO time | x OBO memory |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for path, row in results.items():
        twin = results.get(path.with_suffix(".obo")) if path.suffix == ".owl" else None
        ratio = (f"{row['best'] / twin['best']:.1f} | {row['growth_mb'] / max(twin['growth_mb'], 0.1):.1f}"
                 if twin and row.get("best") and twin.get("best") else "|")
        print(f"| {path.name} | {path.stat().st_size / 2**20:.2f} | {seconds(row.get('first'))} | "
              f"{seconds(row.get('best'))} | {row.get('growth_mb', 0):.1f} | {ratio} |")
    print("\n| file | terms | live | xrefs | exact synonyms | abbreviations | related | definitions |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for path, row in results.items():
        if "terms" in row:
            print(f"| {path.name} | {row['terms']:,} | {row['live']:,} | {row['xrefs']:,} | {row['exact']:,} | "
                  f"{row['abbreviations']:,} | {row['related']:,} | {row['definitions']:,} |")
    for path, row in results.items():
        print(f"\n{path.name}: " + (row["error"] or f"{len(row['problems'])} line(s) reported"))
        for line in row.get("problems", []):
            print(f"  - {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
