"""Draw the random sample of offline triplets that docs/search.md reports the precision of: the
offline extractor's entities and relations on three corpora (the built-in sample, the shared
guidelines, DB-GPT's graphrag-test.md), for the extractor given by --extractor (a module path;
default this checkout's). Each item is printed with a short id (a hash of corpus and item), and
bench/triplet_labels.tsv holds a person's judgement per id (1 right, 0 wrong), so the
shared texts stay in ../shared. With --labels, prints the precision of the labelled items.

    python bench/triplet_sample.py                          # the items to judge
    python bench/triplet_sample.py --labels bench/triplet_labels.tsv
    python bench/triplet_sample.py --extractor /path/to/old_extractive.py --labels ...
"""
from __future__ import annotations

import argparse
import hashlib
import importlib.util
import random
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "corpus"
CORPORA = {
    "sample": (sorted((REPO / "samples" / "guidelines").glob("*.md")), REPO / "plugins" / "cardiology" / "ontology.yaml"),
    "guidelines": (sorted((SHARED / "guidelines").glob("*.md")), SHARED / "ontology.yaml"),
    "dbgpt": ([SHARED / "dbgpt" / "graphrag-test.md"], None),
}
ENTITIES, RELATIONS = 30, 20


def chunks_of(paths: list[Path]) -> list[str]:
    from tripartite.infra.config import load_settings
    from tripartite.lexical.chunker import chunk_document
    from tripartite.lexical.readers import read_document
    from tripartite.lexical.token_counters import WordPieceCounter

    counter = WordPieceCounter(load_settings().cache_dir)
    return [c.text for p in paths for c in chunk_document(read_document(p, p.stem), counter).chunks]


def concepts_of(path: Path | None):
    from tripartite.ontology.concept import ConceptInfo

    if path is None:
        return []
    data = yaml.safe_load(path.read_text())
    found = []
    for klass in data.get("classes") or data.get("concept_classes") or []:
        for c in klass.get("concepts", []):
            found.append(ConceptInfo(c["id"], c["name"], tuple(c.get("synonyms") or ()), c.get("description") or ""))
    return found


def load_extractor(path: str | None):
    if path is None:
        from tripartite.kg import extractive
        return extractive
    spec = importlib.util.spec_from_file_location("extractor_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def items(corpus: str, module) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    from tripartite.kg.schema import TripletTask

    paths, ontology = CORPORA[corpus]
    texts = chunks_of(paths)
    extractor = module.TripletExtractor(concepts_of(ontology), module.recurring_terms(texts))
    entities, relations = {}, {}
    for i, text in enumerate(texts):
        answer, _ = extractor.answer(TripletTask("kg", f"c{i}", "", text, ()))
        for e in answer["entities"]:
            entities.setdefault(e["name"].lower(), f"{e['name']}  ({e['type']})  <- {e['description'][:140]}")
        for r in answer["relations"]:
            relations.setdefault((r["source"].lower(), r["target"].lower()),
                                 f"{r['source']} -[{r['type']}]-> {r['target']}  <- {r['description'][:160]}")
    rng = random.Random(7)
    pick = lambda d, n: [d[k] for k in sorted(rng.sample(sorted(d), min(n, len(d))))]
    return pick(entities, ENTITIES), pick(relations, RELATIONS)


def item_id(corpus: str, kind: str, text: str) -> str:
    return hashlib.sha1(f"{corpus}|{kind}|{text.split('  <-')[0]}".encode()).hexdigest()[:10]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--extractor", help="a module file with TripletExtractor and recurring_terms")
    parser.add_argument("--labels", help="a TSV of id, label (1 or 0)")
    args = parser.parse_args()
    module = load_extractor(args.extractor)
    labels = {}
    if args.labels:
        for line in Path(args.labels).read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                key, value = line.split("\t")[:2]
                labels[key] = int(value)
    for corpus in CORPORA:
        if not all(p.exists() for p in CORPORA[corpus][0]):
            print(f"{corpus}: not found, skipped", file=sys.stderr)
            continue
        entities, relations = items(corpus, module)
        for kind, drawn in (("entity", entities), ("relation", relations)):
            ids = [item_id(corpus, kind, text) for text in drawn]
            if args.labels:
                judged = [labels[i] for i in ids if i in labels]
                share = f"{sum(judged) / len(judged):.2f}" if judged else "n/a"
                print(f"{corpus:<11} {kind:<9} precision {share} ({sum(judged)} of {len(judged)} judged; "
                      f"{len(ids) - len(judged)} unjudged)")
            else:
                for i, text in zip(ids, drawn):
                    print(f"{i}\t{corpus}\t{kind}\t{text}")


if __name__ == "__main__":
    main()
