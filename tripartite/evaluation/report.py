"""The evaluation's results as Markdown (for people) and JSON (for scripts)."""
from __future__ import annotations

import json
import math
from dataclasses import asdict
from pathlib import Path

from tripartite.evaluation.measure import REACH_K, Measurement, Summary, Verdict
from tripartite.evaluation.tune import TunePoint

DEFINITIONS = (
    "Coverage is judged without the pre-analysis. The lexicon judge takes as the object's concepts the ontology "
    "concepts whose name or a synonym appears as whole words in the object's text, and counts one as covered "
    "when its name or a synonym appears in the text the prompt cites (a Tripartite prompt's quoted extracts, a "
    f"RAG prompt's retrieved chunks). Reach counts only the concepts RAG top-{REACH_K} covers for the object. "
    "Density is concepts covered per 1,000 prompt tokens (cl100k_base). The pre-analysis column is the older "
    "measure: of the concepts the pre-analysis found in the object, those for which a cited chunk carries an "
    "extract. Local and global search (DB-GPT's GraphRAG over the triplet graph) search with the object's text; "
    "what they cite is their entities, relations, community points and quoted chunks, and all prompt tokens adds "
    "global search's map calls to the final prompt. Figures are medians over the objects; coverage and density "
    "over those the judge finds at least one concept in (one that names none cannot be covered by any prompt).")


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


def summary_table(summaries: list[Summary]) -> list[str]:
    llm = any(s.median_llm_coverage is not None for s in summaries)
    spent = any(s.median_spent is not None for s in summaries)
    head = ("| method | median tokens |" + (" all prompt tokens |" if spent else "")
            + " coverage (lexicon judge) | of RAG top-40's reach | density (covered / 1k tokens) "
            "| coverage (pre-analysis) |" + (" coverage (LLM judge) |" if llm else ""))
    lines = [head, "|---|---:|" + ("---:|" if spent else "") + "---:|---:|---:|---:|" + ("---:|" if llm else "")]
    for s in summaries:
        total = s.median_spent if s.median_spent is not None else s.median_tokens
        lines.append(f"| {s.method} | {s.median_tokens:,.0f} |" + (f" {total:,.0f} |" if spent else "")
                     + f" {_percent(s.median_coverage)} | {_percent(s.median_reach)} | {s.median_density:.2f} | "
                     f"{_percent(s.median_analysed_coverage)} |" + (f" {_percent(s.median_llm_coverage)} |" if llm else ""))
    return lines


def verdict_lines(verdicts: list[Verdict]) -> list[str]:
    def mark(ok: bool) -> str:
        return "met" if ok else "NOT met"

    return [f"- {v.method}: median prompt {v.median_tokens:,.0f} tokens (target <= {v.token_target:,.0f}: "
            f"{mark(v.tokens_ok)}); coverage {_percent(v.median_coverage)} (target >= {_percent(v.coverage_target)}: "
            f"{mark(v.coverage_ok)}); {_percent(v.median_reach)} of RAG top-{REACH_K}'s reach (target >= "
            f"{_percent(v.reach_target)}: {mark(v.reach_ok)}); density {v.density_ratio:.2f}x the best RAG "
            f"setting's, {v.best_rag_method} (target >= {v.ratio_target:g}x: {mark(v.ratio_ok)})."
            for v in verdicts]


def per_object_table(measurements: list[Measurement]) -> list[str]:
    methods = list(dict.fromkeys(m.method for m in measurements))
    by_object: dict[str, dict[str, Measurement]] = {}
    for m in measurements:
        by_object.setdefault(m.object_id, {})[m.method] = m
    lines = ["| object | concepts | " + " | ".join(f"{m} tokens / covered" for m in methods) + " |",
             "|---|---:|" + "---:|" * len(methods)]
    for object_id, row in by_object.items():
        concepts = next(iter(row.values())).concepts
        cells = [f"{row[m].tokens:,} / {row[m].judged}" for m in methods]
        lines.append(f"| {object_id} | {concepts} | " + " | ".join(cells) + " |")
    return lines


def sweep_table(points: list[TunePoint], best: TunePoint | None = None) -> list[str]:
    lines = ["| selection | alpha | beta | budget | median tokens | coverage | of reach | density |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for p in points:
        mark = " **(best)**" if p == best else ""
        budget = p.budget.label
        lines.append(f"| {p.selection}{mark} | {p.alpha:g} | {p.beta:g} | {budget} | {p.median_tokens:,.0f} | "
                     f"{_percent(p.median_coverage)} | {_percent(p.median_reach)} | {p.median_density:.2f} |")
    return lines


def write_markdown(path: Path, context: dict, summaries: list[Summary], verdicts: list[Verdict],
                   measurements: list[Measurement], points: list[TunePoint], plot_name: str) -> None:
    searched = " and ".join(f"{m} search" for m in context.get("searches", []))
    lines = ["# Tripartite prompts against vector RAG" + (f", {searched}" if searched else ""), "",
             f"Documents: {context['documents']} ({context['chunks']} chunks); ontology: {context['ontology']}; "
             f"objects: {context['objects']}; extraction: {context['provider']} ({context['model']}); "
             f"chunk embeddings: {context['embedder']}; alpha {context['alpha']}, beta {context['beta']}.", ""]
    lines += [f"Note: {note}" for note in context.get("notes", [])] + ([""] if context.get("notes") else [])
    lines += [DEFINITIONS, "", *summary_table(summaries), "", *verdict_lines(verdicts), "",
              f"![median coverage against median prompt tokens]({plot_name})", "",
              "## Per object", "", *per_object_table(measurements), ""]
    if points:
        lines += ["## Alpha, beta and the budget", "", *sweep_table(points), ""]
    path.write_text("\n".join(lines), encoding="utf-8")


def write_json(path: Path, context: dict, summaries: list[Summary], verdicts: list[Verdict],
               measurements: list[Measurement], points: list[TunePoint]) -> None:
    data = {**context, "definitions": DEFINITIONS,
            "summary": [asdict(s) for s in summaries],
            "targets": [{**asdict(v), "tokens_ok": v.tokens_ok, "ratio_ok": v.ratio_ok, "reach_ok": v.reach_ok,
                         "coverage_ok": v.coverage_ok, "met": v.met} for v in verdicts],
            "objects": [{**asdict(m), "coverage": m.coverage, "reach": m.reach, "density": m.density}
                        for m in measurements],
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
