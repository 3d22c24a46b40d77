"""Per object: Tripartite prompts against vector-RAG prompts at several settings, each scored
by judges that do not use the pre-analysis (judge.py), and by the older measure that does.

Measures, per object and method:
- tokens: the whole prompt, cl100k_base;
- coverage: of the object's concepts (found by the lexicon judge in the object's text), the
  share the lexicon judge finds in the text the prompt cites;
- reach: the same, counted only over the concepts that RAG top-40 covers for that object
  (what retrieval can reach at all in these documents);
- density: concepts covered (by the lexicon judge) per 1,000 prompt tokens;
- analysed coverage, the older measure: of the concepts the pre-analysis found in the object
  (CONCERNS), those for which a cited chunk carries an extract (cypher/evaluation/coverage.cypher);
- LLM coverage, when an LLM judge is given;
- spent: every prompt token the method spends for the object (global search's map calls,
  local search's keywords call), when that is more than the prompt.

Local and global search (DB-GPT's GraphRAG) build their prompts with the object's text as what
is searched for (search/modes.py); what they cite is their graph material and quoted chunks.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass

from tripartite.evaluation.constants import SEARCH_LABELS
from tripartite.evaluation.judge import LexiconJudge, LLMJudge
from tripartite.infra.config import SelectionSettings
from tripartite.ontology.plugins import question_or_default
from tripartite.infra.graph import Graph
from tripartite.objects.store import object_text
from tripartite.search.modes import object_prompt
from tripartite.search.vector import rag_prompt, retrieve
from tripartite.selection.prompt import NoPrompt

TRIPARTITE = "Tripartite"
SAME_BUDGET = "RAG same budget"  # per object, as many top chunks as fit in the Tripartite prompt's tokens
REACH_K = 40                     # reach: what RAG top-40 covers


def is_tripartite(method: str) -> bool:
    return method.startswith(TRIPARTITE)


def is_rag(method: str) -> bool:
    return method.startswith("RAG")


def is_search(method: str) -> bool:
    return method in SEARCH_LABELS.values()


@dataclass(frozen=True)
class Variant:
    """One way to build Tripartite prompts; Variant() is the default one."""
    selection: str = "floor"
    max_tokens: int | None = None
    max_per_concept: int | None = None
    tokens_per_concept: int | None = SelectionSettings.tokens_per_concept

    @property
    def label(self) -> str:
        parts = [] if self.selection == "floor" else ["paper selection"]
        if self.max_tokens is not None:
            parts.append(f"budget {self.max_tokens:,} tokens")
        elif self.tokens_per_concept != SelectionSettings.tokens_per_concept:
            parts.append("no budget" if self.tokens_per_concept is None else f"{self.tokens_per_concept} tokens per concept")
        if self.max_per_concept is not None:
            parts.append(f"best {self.max_per_concept} per concept")
        return TRIPARTITE + (", " + ", ".join(parts) if parts else "")


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
    method: str
    tokens: int          # the whole prompt, cl100k_base
    chunks: int          # chunks the prompt cites
    concepts: int        # the object's concepts, by the lexicon judge
    judged: int          # of them, covered by the lexicon judge
    reachable: int       # of them, covered by RAG top-40
    reached: int         # of those, covered by this prompt
    analysed: int        # concepts the pre-analysis found in the object
    covered: int         # of those, covered by the older, pre-analysis measure
    llm_judged: int | None = None  # of the object's concepts, informed according to the LLM judge
    spent: int | None = None       # every prompt token spent, when more than the prompt's (map calls)

    @property
    def coverage(self) -> float:
        return self.judged / self.concepts if self.concepts else 0.0

    @property
    def reach(self) -> float | None:
        return self.reached / self.reachable if self.reachable else None

    @property
    def density(self) -> float:
        """Concepts covered (lexicon judge) per 1,000 prompt tokens."""
        return 1000.0 * self.judged / self.tokens if self.tokens else 0.0

    @property
    def analysed_coverage(self) -> float:
        return self.covered / self.analysed if self.analysed else 0.0

    @property
    def llm_coverage(self) -> float | None:
        return None if self.llm_judged is None else (self.llm_judged / self.concepts if self.concepts else 0.0)


def coverage(graph: Graph, object_id: str, chunk_ids: list[str]) -> tuple[int, int]:
    """(covered, total) by the older measure: of the concepts the pre-analysis found in the
    object, those for which one of the chunks carries an extract."""
    row = graph.run("evaluation/coverage", object_id=object_id, chunk_ids=chunk_ids)[0]
    return row["covered"], row["total"]


class Scorer:
    """Scores prompts of one object with every judge."""

    def __init__(self, graph: Graph, object_id: str, text: str, judge: LexiconJudge, llm_judge: LLMJudge | None,
                 reach_text: str, analysed: bool = True):
        self.graph, self.object_id, self.judge, self.llm_judge = graph, object_id, judge, llm_judge
        self.analysed = analysed  # also score with the older, pre-analysis measure (one query a prompt)
        self.concepts = judge.concepts_in(text)
        self.reachable = judge.concepts_in(reach_text, among=self.concepts)

    def measure(self, method: str, tokens: int, chunk_ids: list[str], cited: str,
                spent: int | None = None) -> Measurement:
        judged = self.judge.concepts_in(cited, among=self.concepts)
        covered, analysed = coverage(self.graph, self.object_id, sorted(set(chunk_ids))) if self.analysed else (0, 0)
        llm = (len(self.llm_judge.informed(f"{self.object_id}/{method}", self.concepts, cited))
               if self.llm_judge else None)
        return Measurement(self.object_id, method, tokens, len(set(chunk_ids)), len(self.concepts), len(judged),
                           len(self.reachable), len(judged & self.reachable), analysed, covered, llm,
                           spent if spent is not None and spent != tokens else None)


def scorer_for(graph: Graph, embedder, object_id: str, judge: LexiconJudge, llm_judge: LLMJudge | None = None,
               analysed: bool = True) -> tuple[Scorer, dict, list[dict]]:
    """The object's scorer, its text and question, and every chunk ranked for RAG."""
    found = object_text(graph, object_id)
    ranked = retrieve(graph, embedder, found["text"], None, None)
    reach_text = "\n".join(c["text"] for c in ranked[:REACH_K])
    return Scorer(graph, object_id, found["text"], judge, llm_judge, reach_text, analysed), found, ranked


def measure_tripartite(graph: Graph, scorer: Scorer, variant: Variant, question: str | None) -> Measurement:
    try:
        built = object_prompt(graph, scorer.object_id, "tripartite", None, None, question, variant.max_tokens,
                              {"selection": variant.selection, "max_per_concept": variant.max_per_concept,
                               "tokens_per_concept": variant.tokens_per_concept}, percentiles=False)
    except NoPrompt:
        state = graph.one("objects/object_state", object_ids=[scorer.object_id])
        if not state or not state["analysed"] or state["analysis_error"]:
            raise
        # The pre-analysis found none of the concepts in it: Tripartite offers no evidence, and
        # is scored for that (the judge may still find concepts in the object's text).
        found = object_text(graph, scorer.object_id)
        bare = rag_prompt(scorer.object_id, found["text"], [], question_or_default(question, found["question"]))
        return scorer.measure(variant.label, bare["tokens"], [], "")
    evidence = [e for c in built.details()["concepts"] for e in c["evidence"]]
    return scorer.measure(variant.label, built.tokens, [e["chunk_id"] for e in evidence], built.material)


def measure_search(graph: Graph, scorer: Scorer, mode: str, embedder, runner, question: str | None) -> Measurement:
    built = object_prompt(graph, scorer.object_id, mode, embedder, runner, question)
    return scorer.measure(SEARCH_LABELS[mode], built.tokens, built.cited(), built.material, built.total_tokens)


def measure_objects(graph: Graph, embedder, object_ids: list[str], variants: list[Variant],
                    settings: list[RagSetting], question: str | None, judge: LexiconJudge,
                    llm_judge: LLMJudge | None = None, on_object=lambda object_id: None,
                    searches: tuple[str, ...] = (), search_runner=None) -> list[Measurement]:
    """Every Tripartite variant, every RAG setting and each search ("local", "global"; with
    `search_runner` for their LLM steps), for each object. RAG ranks all chunks once per object
    (neo4j-graphrag's VectorRetriever, the object's text as the query) and each setting takes
    its share of that ranking; "RAG same budget" takes as many top chunks as fit in the first
    variant's prompt."""
    results: list[Measurement] = []
    for object_id in object_ids:
        on_object(object_id)
        scorer, found, ranked = scorer_for(graph, embedder, object_id, judge, llm_judge)
        ours = [measure_tripartite(graph, scorer, variant, question) for variant in variants]
        results += ours

        def rag(label: str, chunks: list[dict] | None = None, max_tokens: int | None = None) -> Measurement:
            # one ranking per object, each setting its share of it (modes' rag takes the ranking given)
            built = object_prompt(graph, object_id, "rag", embedder, None, question, max_tokens,
                                  rag={"ranked": ranked if chunks is None else chunks})
            return scorer.measure(label, built.tokens, built.cited(), built.material)

        results += [rag(setting.label, setting.pick(ranked)) for setting in settings]
        if ours:
            results.append(rag(SAME_BUDGET, max_tokens=ours[0].tokens))
        results += [measure_search(graph, scorer, mode, embedder, search_runner, question) for mode in searches]
    return results


@dataclass(frozen=True)
class Summary:
    method: str
    objects: int
    median_tokens: float
    median_coverage: float            # lexicon judge, of the object's concepts
    median_reach: float | None        # lexicon judge, of what RAG top-40 reaches
    median_density: float             # lexicon judge, per 1,000 tokens
    median_concepts: float
    median_judged: float
    median_analysed_coverage: float   # the older, pre-analysis measure
    median_llm_coverage: float | None
    median_spent: float | None = None  # every prompt token, where more than the prompt's


def summarize(measurements: list[Measurement]) -> list[Summary]:
    """Medians over objects, per method, in the order the methods first appear. Coverage and
    density are medians over the objects the judge finds a concept in: one that names none
    cannot be covered by any prompt, and counting it as 0% for every method says nothing about
    them (its tokens still count)."""
    by_method: dict[str, list[Measurement]] = {}
    for m in measurements:
        by_method.setdefault(m.method, []).append(m)
    summaries = []
    for method, rows in by_method.items():
        judged = [r for r in rows if r.concepts] or rows
        analysed = [r for r in rows if r.analysed] or rows
        summaries.append(Summary(
            method, len(rows), statistics.median(r.tokens for r in rows),
            statistics.median(r.coverage for r in judged), _median([r.reach for r in rows]),
            statistics.median(r.density for r in judged), statistics.median(r.concepts for r in rows),
            statistics.median(r.judged for r in rows), statistics.median(r.analysed_coverage for r in analysed),
            _median([r.llm_coverage for r in judged]), _median([r.spent for r in rows])))
    return summaries


def _median(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


@dataclass(frozen=True)
class Verdict:
    method: str                   # the Tripartite variant judged
    median_tokens: float
    median_reach: float | None
    best_rag_method: str
    density_ratio: float          # the variant's median density over the best RAG setting's
    median_coverage: float        # lexicon judge, of the object's concepts
    # The targets of the object prompt (issue 49 raised them from 1,500 tokens and 2x).
    token_target: float = 600
    ratio_target: float = 3.5
    reach_target: float = 0.9
    coverage_target: float = 0.9

    @property
    def tokens_ok(self) -> bool:
        return self.median_tokens <= self.token_target

    @property
    def ratio_ok(self) -> bool:
        return self.density_ratio >= self.ratio_target

    @property
    def reach_ok(self) -> bool:
        return self.median_reach is not None and self.median_reach >= self.reach_target

    @property
    def coverage_ok(self) -> bool:
        return self.median_coverage >= self.coverage_target

    @property
    def met(self) -> bool:
        return self.tokens_ok and self.ratio_ok and self.reach_ok and self.coverage_ok


def verdicts_of(summaries: list[Summary]) -> list[Verdict]:
    """The targets, judged for each Tripartite variant against the RAG setting of best density."""
    rag = [s for s in summaries if is_rag(s.method)]
    best = max(rag, key=lambda s: s.median_density)
    return [Verdict(ours.method, ours.median_tokens, ours.median_reach, best.method,
                    _ratio(ours.median_density, best.median_density), ours.median_coverage)
            for ours in summaries if is_tripartite(ours.method)]


def _ratio(ours: float, best: float) -> float:
    """How many times the best RAG density; nothing over nothing is 0, not a pass."""
    if ours == 0:
        return 0.0
    return ours / best if best else float("inf")
