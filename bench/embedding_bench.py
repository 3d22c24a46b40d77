"""What the local embedding models cost: ingest throughput (chunks a second, on this machine's
cores), a question's latency, the process's memory and the files' size, for all-MiniLM-L6-v2
alone (the default before 2026-12-05) and the default (each language by its own model), on
English and Chinese documents chunked as `ingest` chunks them. No Neo4j needed.

    python3 bench/embedding_bench.py                      # the shared corpus (../shared/corpus)
    python3 bench/embedding_bench.py --english DIR --chinese FILE

Each model runs in a process of its own, so the memory figure is that model's alone.
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "corpus"
QUESTIONS = {"en": "Which drugs lower the risk of a stroke in atrial fibrillation?",
             "zh": "TuGraph Analytics 支持哪些编程接口？"}


def chunks_of(paths: list[Path], embedder) -> list[str]:
    from tripartite.lexical.chunker import chunk_document
    from tripartite.lexical.readers import read_document
    from tripartite.lexical.token_counters import RoutedCounter, WordPieceCounter

    counter = RoutedCounter(embedder) if hasattr(embedder, "members") else WordPieceCounter(embedder=embedder)
    return [chunk.text for path in paths for chunk in chunk_document(read_document(path, path.stem), counter).chunks]


def measure(model: str, english: list[Path], chinese: list[Path]) -> dict:
    """One model's figures (run in a process of its own)."""
    from tripartite.infra.config import load_settings
    from tripartite.infra.embeddings import forget_recent_vectors, local_embedder

    started = time.perf_counter()
    embedder = local_embedder(load_settings(env={"TRIPARTITE_EMBEDDING_MODEL": model}))
    loaded = time.perf_counter() - started
    figures = {"model": embedder.name, "dimensions": embedder.dimensions, "load_s": round(loaded, 2)}
    for language, paths in (("en", english), ("zh", chinese)):
        texts = chunks_of(paths, embedder)
        forget_recent_vectors()
        started = time.perf_counter()
        embedder.embed(texts)
        embedder.embed([f"{texts[0]}\n{text}" for text in texts])  # ingest embeds each chunk twice (text, headings)
        seconds = time.perf_counter() - started
        figures[f"{language}_chunks"] = len(texts)
        figures[f"{language}_chunks_per_s"] = round(len(texts) / seconds, 1)
        latencies = []
        for n in range(5):
            forget_recent_vectors()
            started = time.perf_counter()
            embedder.embed([f"{QUESTIONS[language]} {n}"])
            latencies.append(time.perf_counter() - started)
        figures[f"{language}_query_ms"] = round(sorted(latencies)[2] * 1000, 1)
    figures["max_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return figures


def model_files_mb(model: str) -> float:
    """Disk the model's files take: the ONNX file and tokenizer of each member."""
    from tripartite.infra import model_assets
    from tripartite.infra.config import load_settings
    from tripartite.infra.embedding_models import DEFAULT_LANGUAGES, MINILM, MODELS

    settings = load_settings(env={})
    specs = DEFAULT_LANGUAGES if model == "auto" else (MODELS[model],)
    total = 0
    for spec in specs:
        if spec is MINILM:
            files = (model_assets.onnx_model_path(), model_assets.tokenizer_path(settings.cache_dir))
        else:
            files = model_assets.maven_model_files(spec, settings.cache_dir)
        total += sum(Path(f).stat().st_size for f in files)
    return round(total / 2**20, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--english", type=Path, default=SHARED / "guidelines")
    parser.add_argument("--chinese", type=Path, default=SHARED / "dbgpt" / "graphrag-test.md")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # a model measured in this process (internal)
    args = parser.parse_args()
    english = sorted(args.english.glob("*.md")) if args.english.is_dir() else [args.english]
    chinese = sorted(args.chinese.glob("*.md")) if args.chinese.is_dir() else [args.chinese]
    if args.one:
        print(json.dumps(measure(args.one, english, chinese)))
        return
    rows = []
    for model in ("all-MiniLM-L6-v2", "auto"):
        done = subprocess.run([sys.executable, __file__, "--one", model, "--english", str(args.english),
                               "--chinese", str(args.chinese)], capture_output=True, text=True, check=True)
        rows.append({**json.loads(done.stdout.strip().splitlines()[-1]), "files_mb": model_files_mb(model)})
    print(f"English: {english[0].parent if len(english) > 1 else english[0]} ({rows[0]['en_chunks']} chunks); "
          f"Chinese: {chinese[0]} ({rows[0]['zh_chunks']} chunks); each chunk embedded twice, as ingest does\n")
    print("| model | dimensions | load s | English chunks/s | Chinese chunks/s | English query ms | Chinese query ms "
          "| max RSS MB | files MB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['model']} | {r['dimensions']} | {r['load_s']} | {r['en_chunks_per_s']} | {r['zh_chunks_per_s']} | "
              f"{r['en_query_ms']} | {r['zh_query_ms']} | {r['max_rss_mb']} | {r['files_mb']} |")


if __name__ == "__main__":
    main()
