"""How well the pre-analysis finds the concepts a chunk speaks of (issue 49, point 3): the
(chunk, concept) pairs it wrote an extract for (MENTIONED_IN), scored against
bench/concept_detection_labels.tsv, our reading of 96 chunks of the shared corpus's
guidelines (two fixed random samples: one the threshold was chosen on, one held out) against
the 27 concepts of its benchmark ontology: a pair
is 1 when a clinician looking up what the guidelines say about the concept would want that
chunk (the concept, an instance of it or a plain paraphrase, with something said about it).

With --objects, the concepts it found in 16 of the corpus's clinical notes (CONCERNS) are scored
against bench/object_detection_labels.tsv, our reading of those notes (8 to choose on, 8 held out).

The graph must hold the shared corpus analysed, as `tripartite eval` leaves it:

    NEO4J_URI=bolt://127.0.0.1:7688 tripartite eval ../shared/corpus/guidelines/*.md \\
        ../shared/corpus/ontology.yaml ../shared/corpus/anamneses --kind anamnesis --reset --out /tmp/ev
    NEO4J_URI=bolt://127.0.0.1:7688 python bench/concept_detection_bench.py [--objects] [--misses]

Prints precision, recall and F1 over the labelled pairs, and how the extracts that name the
concept and those found only by closeness to its description divide them. A labelled chunk the
graph does not hold (other chunking) is counted and named, never guessed.
"""
from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from pathlib import Path

from neo4j import GraphDatabase

LABELS = Path(__file__).with_name("concept_detection_labels.tsv")
OBJECT_LABELS = Path(__file__).with_name("object_detection_labels.tsv")
# What an item is and the edge its extracts stand on: a chunk's MENTIONED_IN, a note's CONCERNS.
FOUND = {
    "chunks": """MATCH (t:Chunk) WHERE t.id IN $items
        OPTIONAL MATCH (c:Concept)-[m:MENTIONED_IN]->(t) WHERE m.summary <> ''
        RETURN t.id AS item, c.id AS concept, c.name AS name, coalesce(c.synonyms, []) AS synonyms,
               m.summary AS summary""",
    "objects": """MATCH (o:Object) WHERE o.id IN $items
        OPTIONAL MATCH (o)-[m:CONCERNS]->(c:Concept) WHERE m.summary <> ''
        RETURN o.id AS item, c.id AS concept, c.name AS name, coalesce(c.synonyms, []) AS synonyms,
               m.summary AS summary""",
}


def read_labels(path: Path, wanted: str | None = None) -> tuple[set[str], set[tuple[str, str]]]:
    """The labelled chunks of one set (tuning, held-out; None: both), and their positive
    (chunk, concept) pairs ("none": a chunk about none of the concepts)."""
    chunks, positives = set(), set()
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            which, chunk, concept = line.split("\t")[:3]
            if wanted not in (None, which):
                continue
            chunks.add(chunk)
            if concept != "none":
                positives.add((chunk, concept))
    return chunks, positives


def detected(driver, chunks: set[str], kind: str) -> tuple[set[str], set[str], dict[tuple[str, str], bool]]:
    """The labelled items (chunks or objects) the graph holds, the loaded concepts, and each
    (item, concept) the pre-analysis wrote a non-empty extract for, with whether the extract
    names the concept."""
    records, _, _ = driver.execute_query(FOUND[kind], items=sorted(chunks))
    concepts = {r["id"] for r in driver.execute_query("MATCH (c:Concept) RETURN c.id AS id").records}
    from tripartite.analysis.extractive import synonym_pattern
    from tripartite.ontology.concept import ConceptInfo

    found, held = {}, set()
    for r in records:
        held.add(r["item"])
        if r["concept"] is not None:
            pattern = synonym_pattern(ConceptInfo(r["concept"], r["name"], tuple(r["synonyms"]), ""), inflected=True)
            found[(r["item"], r["concept"])] = bool(pattern.search(r["summary"]))
    return held, concepts, found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--labels", type=Path, default=LABELS)
    parser.add_argument("--misses", action="store_true", help="List every missed and every spurious pair.")
    parser.add_argument("--objects", action="store_true", help="Score the notes' concepts (CONCERNS) instead.")
    args = parser.parse_args()
    kind, labels = ("objects", OBJECT_LABELS) if args.objects else ("chunks", args.labels)
    uri = os.environ.get("NEO4J_URI", "bolt://127.0.0.1:7687")
    auth = (os.environ["NEO4J_USERNAME"], os.environ["NEO4J_PASSWORD"]) if os.environ.get("NEO4J_PASSWORD") else None
    with GraphDatabase.driver(uri, auth=auth) as driver:
        for which in ("tuning", "held-out"):
            print(f"== {which} ==")
            report(driver, *read_labels(labels, which), uri, args.misses, kind)


def report(driver, chunks: set[str], positives: set[tuple[str, str]], uri: str, misses: bool, kind: str) -> None:
    held, concepts, found = detected(driver, chunks, kind)
    missing = chunks - held
    if missing == chunks:
        sys.exit(f"none of the {len(chunks)} labelled {kind} is in {uri}; analyse the shared corpus first (see the doc)")
    positives = {p for p in positives if p[0] in held}
    predicted = {p for p in found if p[0] in held}
    unknown = {c for _, c in positives} - concepts
    hits = positives & predicted
    precision = len(hits) / len(predicted) if predicted else 0.0
    recall = len(hits) / len(positives) if positives else 0.0
    f1 = 2 * precision * recall / (precision + recall) if hits else 0.0
    named = {p for p in predicted if found[p]}
    print(f"labelled {kind}: {len(chunks)} ({len(missing)} not in the graph), concepts: {len(concepts)}, "
          f"pairs judged: {len(held) * len(concepts):,}, positive: {len(positives)}")
    print(f"detected: {len(predicted)}  precision {precision:.2f}  recall {recall:.2f}  F1 {f1:.2f}")
    print(f"  extract names the concept: {len(named)} ({len(named & positives)} right); "
          f"found by closeness only: {len(predicted - named)} ({len((predicted - named) & positives)} right)")
    if unknown:
        print(f"labels name concepts the graph does not hold: {', '.join(sorted(unknown))}")
    if misses:
        for title, pairs in (("missed", positives - predicted), ("spurious", predicted - positives)):
            by_concept = Counter(c for _, c in pairs)
            print(f"{title} ({len(pairs)}): " + ", ".join(f"{c.split(':')[-1]} {n}" for c, n in by_concept.most_common()))
            for chunk, concept in sorted(pairs):
                print(f"  {title[0]} {chunk}\t{concept}")


if __name__ == "__main__":
    main()
