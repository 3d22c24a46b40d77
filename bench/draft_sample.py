"""How many of the concepts `ontology draft --offline` proposes a curator would keep (issue 51,
point 4): the draft's full list on a corpus, a random sample of 20 of it (fixed seed), each
scored against bench/draft_labels.tsv, a person's judgement of proposed concepts read in
context (1: a domain concept the corpus's curator would keep; 0: not one; with a reason).

Each corpus is ingested alone into the database NEO4J_URI names, which the bench EMPTIES
first (everything but the migration history): give it a scratch database only. The draft
runs as a user runs it, `python -m tripartite ontology draft --offline`, of this checkout or
of the one --code names (for the figure before a change: `git worktree add /tmp/before REV`).

    NEO4J_URI=bolt://127.0.0.1:7689 python bench/draft_sample.py            # both corpora
    NEO4J_URI=... python bench/draft_sample.py --corpus guidelines --code /tmp/before
    NEO4J_URI=... python bench/draft_sample.py --list    # every proposal, with its first sentence, to label

Proposals the labels do not cover are counted and printed as unlabelled, never guessed.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
CORPORA = {
    "guidelines": REPO.parent / "shared" / "corpus" / "guidelines",    # six NHLBI heart guidelines
    "moteus": Path("/work/corpora/moteus/docs"),                         # a servo controller's manual
}
SAMPLE, SEED, CONCEPTS = 20, 51, 40


def key(name: str) -> str:
    return " ".join(name.casefold().split())


def read_labels(path: Path) -> dict[tuple[str, str], tuple[int, str]]:
    """(corpus, concept name folded) -> (1 or 0, reason)."""
    labels = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            corpus, name, label, reason = (line.split("\t") + ["", ""])[:4]
            labels[(corpus, key(name))] = (int(label), reason)
    return labels


def tripartite(code: Path, *args: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(code), "TRIPARTITE_CONFIG": ""}
    done = subprocess.run([sys.executable, "-m", "tripartite", *args], env=env, cwd=code, capture_output=True,
                          text=True)
    if done.returncode:
        raise SystemExit(f"tripartite {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
    return done.stdout


def empty_database() -> None:
    from neo4j import GraphDatabase

    uri = os.environ["NEO4J_URI"]
    auth = (os.environ.get("NEO4J_USER", "neo4j"), os.environ["NEO4J_PASSWORD"]) \
        if os.environ.get("NEO4J_PASSWORD") else None
    with GraphDatabase.driver(uri, auth=auth) as driver:
        with driver.session(database=os.environ.get("NEO4J_DATABASE", "neo4j")) as session:
            session.run("MATCH (n) WHERE NOT n:__TripartiteMigration "
                        "CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS").consume()


def draft(corpus: str, code: Path, concepts: int) -> list[dict]:
    """The concepts the offline draft proposes on the corpus, in the file's order."""
    empty_database()
    tripartite(code, "migrate")
    files = sorted(str(p) for p in CORPORA[corpus].glob("*.md"))
    tripartite(code, "ingest", "--no-embed", *files)
    with tempfile.TemporaryDirectory() as out:
        json.loads(tripartite(code, "ontology", "draft", "--name", corpus, "--out", out, "--offline",
                              "--concepts", str(concepts), "--json"))
        data = yaml.safe_load((Path(out) / corpus / "ontology.yaml").read_text(encoding="utf-8"))
    return [c for k in data["classes"] for c in k["concepts"]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", choices=sorted(CORPORA), action="append", help="default: both")
    parser.add_argument("--code", type=Path, default=REPO, help="the checkout whose drafter runs (default: this one)")
    parser.add_argument("--labels", type=Path, default=REPO / "bench" / "draft_labels.tsv")
    parser.add_argument("--concepts", type=int, default=CONCEPTS, help="the draft's --concepts")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--list", action="store_true", help="print every proposal to label, not the figures")
    args = parser.parse_args()
    if not os.environ.get("NEO4J_URI"):
        raise SystemExit("set NEO4J_URI to a scratch database: the bench empties it")
    labels = read_labels(args.labels) if args.labels.exists() else {}
    for corpus in args.corpus or sorted(CORPORA):
        proposed = draft(corpus, args.code.resolve(), args.concepts)
        if args.list:
            for c in proposed:
                mark = labels.get((corpus, key(c["name"])), ("?", ""))[0]
                print(f"{corpus}\t{c['name']}\t{mark}\t{', '.join(c.get('synonyms', []))}\t{c['seen'][0]}\t"
                      f"{' '.join(c.get('description', '').split())[:200]}")
            continue
        names = [c["name"] for c in proposed]
        sample = random.Random(args.seed).sample(names, min(SAMPLE, len(names)))
        for title, drawn in ((f"sample of {len(sample)} (seed {args.seed})", sample), ("all proposals", names)):
            judged = [labels[(corpus, key(n))][0] for n in drawn if (corpus, key(n)) in labels]
            kept = sum(judged)
            print(f"{corpus:<10} {title:<26} domain concepts {kept}/{len(drawn)} = {kept / len(drawn):.0%}"
                  f"  ({len(drawn) - len(judged)} unlabelled)")
        for name in sample:
            label, reason = labels.get((corpus, key(name)), ("?", "UNLABELLED"))
            print(f"    {label}  {name:<36} {reason}")
        missing = [n for n in names if (corpus, key(n)) not in labels]
        if missing:
            print(f"    unlabelled proposals: {', '.join(missing)}")


if __name__ == "__main__":
    main()
