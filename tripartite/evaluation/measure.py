"""Per object: the Tripartite prompt against vector-RAG prompts at several settings.

A concept of the object (one it CONCERNS: the pre-analysis found it in the object) is
covered by a prompt when at least one chunk the prompt cites carries an extract of that
concept (a MENTIONED_IN edge from the concept to the chunk). The same definition scores
both methods, in cypher/evaluation/coverage.cypher.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass

from tripartite.infra.config import question_or_default
from tripartite.infra.graph import Graph
from tripartite.objects.store import object_text
from tripartite.search.vector import rag_prompt, retrieve
from tripartite.selection import tripartite_prompt

TRIPARTITE = "Tripartite"


def budget_label(budget: int) -> str:
    """The method name of Tripartite prompts keeping each concept's `budget` best extracts."""
    return f"Tripartite, best {budget} per concept"


def is_tripartite(method: str) -> bool:
    return method.startswith(TRIPARTITE)
SAME_BUDGET = "RAG same budget"  # per object, as many top chunks as fit in the Tripartite prompt's tokens


@dataclass(frozen=True)
class RagSetting:
    top_k: int | None = None
    min_score: float | None = None

    @property
    def label(self) -> str:
        return f"RAG top-{self.top_k}" if self.top_k is not None else f"RAG score>={self.min_score:g}"

    def pick(self, ranked: list[dict]) -> list[dict]:
        """The chunks this setting retrieves from all chunks ranked by score."""
        if self.top_k is not None:
            return ranked[:self.top_k]
        return [c for c in ranked if c["score"] >= self.min_score]


@dataclass(frozen=True)
class Measurement:
    object_id: str
    method: str        # "Tripartite" or a RagSetting label
    tokens: int        # the whole prompt, cl100k_base
    concepts: int      # the object's concepts
    covered: int       # of them, covered by the prompt's chunks
    chunks: int        # chunks the prompt cites

    @property
    def density(self) -> float:
        """Covered concepts per 1,000 prompt tokens."""
        return 1000.0 * self.covered / self.tokens if self.tokens else 0.0


def coverage(graph: Graph, object_id: str, chunk_ids: list[str]) -> tuple[int, int]:
    """(covered, total) for the object's concepts and a set of chunks (see the module doc)."""
    row = graph.run("evaluation/coverage", object_id=object_id, chunk_ids=chunk_ids)[0]
    return row["covered"], row["total"]


def tripartite_measurement(graph: Graph, object_id: str, question: str | None,
                           budget: int | None = None) -> Measurement:
    built = tripartite_prompt(graph, object_id, question, max_per_concept=budget)
    cited = sorted({e["chunk_id"] for c in built["concepts"] for e in c["evidence"]})
    covered, total = coverage(graph, object_id, cited)
    method = TRIPARTITE if budget is None else budget_label(budget)
    return Measurement(object_id, method, built["tokens"], total, covered, len(cited))


def measure_objects(graph: Graph, embedder, object_ids: list[str], settings: list[RagSetting],
                    question: str | None, budgets: list[int] = (),
                    on_object=lambda object_id: None) -> list[Measurement]:
    """The Tripartite prompt (and its budgeted variants) and every RAG setting, for each
    object. RAG ranks all chunks once per object (neo4j-graphrag's VectorRetriever, the
    object's text as the query) and each setting takes its share of that ranking."""
    results: list[Measurement] = []
    for object_id in object_ids:
        on_object(object_id)
        ours = tripartite_measurement(graph, object_id, question)
        results.append(ours)
        results += [tripartite_measurement(graph, object_id, question, budget) for budget in budgets]
        found = object_text(graph, object_id)
        text, asked = found["text"], question_or_default(question, found["question"])
        ranked = retrieve(graph, embedder, text, None, None)

        def rag(label: str, chunks: list[dict]) -> Measurement:
            prompt = rag_prompt(object_id, text, chunks, asked)
            covered, total = coverage(graph, object_id, [c["chunk_id"] for c in chunks])
            return Measurement(object_id, label, prompt["tokens"], total, covered, len(chunks))

        results += [rag(setting.label, setting.pick(ranked)) for setting in settings]
        results.append(rag(SAME_BUDGET, ranked[:_fitting(object_id, text, ranked, asked, ours.tokens)]))
    return results


def _fitting(object_id: str, text: str, ranked: list[dict], question: str, budget: int) -> int:
    """The most top-ranked chunks whose RAG prompt stays within `budget` tokens."""
    k = 0
    while k < len(ranked) and rag_prompt(object_id, text, ranked[:k + 1], question)["tokens"] <= budget:
        k += 1
    return k


@dataclass(frozen=True)
class Summary:
    method: str
    objects: int
    median_tokens: float
    median_covered: float
    median_concepts: float
    median_coverage: float   # covered / concepts, per object
    median_density: float    # covered per 1,000 tokens, per object


def summarize(measurements: list[Measurement]) -> list[Summary]:
    """Medians over objects, per method, in the order the methods first appear."""
    by_method: dict[str, list[Measurement]] = {}
    for m in measurements:
        by_method.setdefault(m.method, []).append(m)
    return [Summary(method, len(rows), statistics.median(r.tokens for r in rows),
                    statistics.median(r.covered for r in rows), statistics.median(r.concepts for r in rows),
                    statistics.median(r.covered / r.concepts if r.concepts else 0.0 for r in rows),
                    statistics.median(r.density for r in rows))
            for method, rows in by_method.items()]


@dataclass(frozen=True)
class Verdict:
    method: str                   # the Tripartite variant judged
    tripartite_median_tokens: float
    best_rag_method: str
    density_ratio: float          # Tripartite's median density over the best RAG setting's
    token_target: float = 5000
    ratio_target: float = 1.5

    @property
    def tokens_ok(self) -> bool:
        return self.tripartite_median_tokens <= self.token_target

    @property
    def ratio_ok(self) -> bool:
        return self.density_ratio >= self.ratio_target

    @property
    def met(self) -> bool:
        return self.tokens_ok and self.ratio_ok


def verdicts_of(summaries: list[Summary]) -> list[Verdict]:
    """The targets, judged for each Tripartite variant against the best RAG setting."""
    rag = [s for s in summaries if not is_tripartite(s.method)]
    best = max(rag, key=lambda s: s.median_density)
    return [Verdict(ours.method, ours.median_tokens, best.method, _ratio(ours.median_density, best.median_density))
            for ours in summaries if is_tripartite(ours.method)]


def _ratio(ours: float, best: float) -> float:
    """How many times the best RAG density; nothing over nothing is 0, not a pass."""
    if ours == 0:
        return 0.0
    return ours / best if best else float("inf")
