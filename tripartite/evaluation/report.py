"""The evaluation's results as Markdown (for people) and JSON (for scripts)."""
from __future__ import annotations

import json
import math
from dataclasses import asdict
from pathlib import Path

from tripartite.evaluation.measure import Measurement, Summary, Verdict
from tripartite.evaluation.sweep import SweepPoint

COVERED = ("A concept of the object (one it CONCERNS: the pre-analysis found it in the object) is covered "
           "by a prompt when at least one chunk the prompt cites carries an extract of that concept "
           "(a MENTIONED_IN edge). Density is covered concepts per 1,000 prompt tokens (cl100k_base).")


def summary_table(summaries: list[Summary]) -> list[str]:
    lines = ["| method | median tokens | median concepts covered | median coverage | median density (covered / 1k tokens) |",
             "|---|---:|---:|---:|---:|"]
    for s in summaries:
        lines.append(f"| {s.method} | {s.median_tokens:,.0f} | {s.median_covered:g} of {s.median_concepts:g} | "
                     f"{100 * s.median_coverage:.0f}% | {s.median_density:.2f} |")
    return lines


def verdict_lines(verdicts: list[Verdict]) -> list[str]:
    lines = []
    for v in verdicts:
        lines.append(f"- {v.method}: median prompt {v.tripartite_median_tokens:,.0f} tokens (target <= "
                     f"{v.token_target:,.0f}: {'met' if v.tokens_ok else 'NOT met'}); density "
                     f"{v.density_ratio:.2f}x the best RAG setting's, {v.best_rag_method} (target >= "
                     f"{v.ratio_target:g}x: {'met' if v.ratio_ok else 'NOT met'}).")
    return lines


def per_object_table(measurements: list[Measurement]) -> list[str]:
    methods = list(dict.fromkeys(m.method for m in measurements))
    by_object: dict[str, dict[str, Measurement]] = {}
    for m in measurements:
        by_object.setdefault(m.object_id, {})[m.method] = m
    lines = ["| object | concepts | " + " | ".join(f"{m} tokens / covered" for m in methods) + " |",
             "|---|---:|" + "---:|" * len(methods)]
    for object_id, row in by_object.items():
        concepts = next(iter(row.values())).concepts
        cells = [f"{row[m].tokens:,} / {row[m].covered}" for m in methods]
        lines.append(f"| {object_id} | {concepts} | " + " | ".join(cells) + " |")
    return lines


def sweep_table(points: list[SweepPoint]) -> list[str]:
    lines = ["| alpha | beta | median tokens | median covered | median coverage | median density |",
             "|---:|---:|---:|---:|---:|---:|"]
    for p in points:
        lines.append(f"| {p.alpha:g} | {p.beta:g} | {p.median_tokens:,.0f} | {p.median_covered:g} | "
                     f"{100 * p.median_coverage:.0f}% | {p.median_density:.2f} |")
    return lines


def write_markdown(path: Path, context: dict, summaries: list[Summary], verdicts: list[Verdict],
                   measurements: list[Measurement], points: list[SweepPoint], plot_name: str) -> None:
    lines = ["# Tripartite prompts against vector RAG", "",
             f"Documents: {context['documents']} ({context['chunks']} chunks); ontology: {context['ontology']}; "
             f"objects: {context['objects']}; extraction: {context['provider']} ({context['model']}); "
             f"chunk embeddings: {context['embedder']}; alpha {context['alpha']}, beta {context['beta']}.", "",
             COVERED, "", *summary_table(summaries), "", *verdict_lines(verdicts), "",
             f"![concepts covered against prompt tokens]({plot_name})", "",
             "## Per object", "", *per_object_table(measurements), "",
             "## Alpha and beta", "", *sweep_table(points), ""]
    path.write_text("\n".join(lines), encoding="utf-8")


def write_json(path: Path, context: dict, summaries: list[Summary], verdicts: list[Verdict],
               measurements: list[Measurement], points: list[SweepPoint]) -> None:
    data = {**context, "covered_definition": COVERED,
            "summary": [asdict(s) for s in summaries],
            "targets": [{**asdict(v), "tokens_ok": v.tokens_ok, "ratio_ok": v.ratio_ok, "met": v.met}
                        for v in verdicts],
            "objects": [{**asdict(m), "density": m.density} for m in measurements],
            "sweep": [asdict(p) for p in points]}
    path.write_text(json.dumps(_finite(data), indent=2) + "\n", encoding="utf-8")


def _finite(value):
    """JSON has no Infinity: a ratio over a zero density is written as null."""
    if isinstance(value, float) and math.isinf(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value
