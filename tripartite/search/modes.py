"""The ways to build a prompt, side by side, for one object (tripartite: the selection's prompt;
rag: the chunks closest to the object's text; local and global search: the object's text as
what is searched for) and for a free-text question (the same four, and hybrid): the one road
to every builder. Each gives a PromptResult (search/result.py), so `prompt`, `search`, `ask`,
`eval`, the MCP server and the neo4j-graphrag retriever treat them alike; and this module says
which offline provider answers a mode's LLM steps and what a question must be."""
from __future__ import annotations

from tripartite.infra.config import SearchSettings
from tripartite.infra.errors import TripartiteError
from tripartite.infra.graph import Graph
from tripartite.objects.store import object_text
from tripartite.ontology.plugins import question_or_default
from tripartite.search.constants import MODES, QUESTION_MODES, RAG_TOP_K
from tripartite.search.global_search import global_search
from tripartite.search.hybrid import hybrid_search
from tripartite.search.local_search import local_search
from tripartite.search.tripartite_question import tripartite_question_prompt
from tripartite.search.result import PromptResult
from tripartite.search.vector import fitting, object_rag_prompt, question_rag_prompt, rag_prompt
from tripartite.selection import tripartite_prompt


def _subject(graph: Graph, object_id: str, question: str | None) -> tuple[dict, str]:
    found = object_text(graph, object_id)
    if found is None:
        raise TripartiteError(f"no object with id {object_id!r}; see `tripartite objects list`")
    return {"object_id": object_id, "text": found["text"]}, question_or_default(question, found["question"])


def chunk_trails(graph: Graph, chunk_ids: list[str]) -> list[dict]:
    """Numbered references for chunks, traced to Document > Section."""
    rows = graph.run("search/chunk_trails", chunk_ids=chunk_ids)
    return [{"n": n, "chunk_id": r["chunk_id"], "document": r["document"], "section_path": r["section_path"] or [],
             "index": r["index"]}
            for n, r in enumerate(rows, start=1)]


def check_question(question: str, example: str = "") -> None:
    """Refuse an empty question in one line (every road to a question's prompt asks here)."""
    if not question.strip():
        raise TripartiteError("the question is empty; ask something" + (f", e.g. {example}" if example else ""))


def offline_provider(mode: str, extracts_embedder):
    """What answers a mode's LLM steps when no model is configured (or offline is asked): the
    pre-analysis' extractive reader for tripartite (a question is read like an object), the
    report-sentence ranker for global's map step (local and hybrid ask for keywords, which are
    found offline without a provider's help)."""
    if mode == "tripartite":
        from tripartite.analysis.extractive import ExtractiveProvider

        return ExtractiveProvider(extracts_embedder)
    from tripartite.search.global_search import PointRanker

    return PointRanker()


def question_analyzer(graph: Graph, extracts_embedder, runner):
    """The reader of a question for tripartite: the pre-analysis, writing nothing back."""
    from tripartite.analysis import Analyzer

    return Analyzer(graph, extracts_embedder, runner, persist_glosses=False)


def object_prompt(graph: Graph, object_id: str, mode: str, embedder, runner=None, question: str | None = None,
                  max_tokens: int | None = None, selection: dict | None = None, dry_run: bool = False,
                  rag: dict | None = None, percentiles: bool = True,
                  search: SearchSettings = SearchSettings()) -> PromptResult:
    """The object's prompt built one way. `selection` holds the Tripartite prompt's options
    (selection, max_per_concept, tokens_per_concept, codes); `rag` vector RAG's (top_k, min_score,
    or chunks already ranked for the object); `runner` answers the LLM steps of local
    (keywords) and global (map) search, offline when its provider is; `search` gives local's
    and global's budget, depth and map budget ([search] of the settings)."""
    if mode == "tripartite":
        options = selection or {}
        built = tripartite_prompt(graph, object_id, question, options.get("max_per_concept"), max_tokens,
                                  options.get("selection", "floor"), options.get("tokens_per_concept"),
                                  percentiles=percentiles, codes=options.get("codes"))
        evidence = [e for c in built["concepts"] for e in c["evidence"]]
        asked = built["prompt"].split("\n", 1)[0].removeprefix("Question: ")
        return PromptResult.of(built, mode, material="\n".join(e["text"] for e in evidence), question=asked)
    if mode == "rag":
        built = _object_rag(graph, embedder, object_id, question, max_tokens, rag or {})
        references = chunk_trails(graph, [c["chunk_id"] for c in built["chunks"]])
        asked = built["prompt"].split("\n", 1)[0].removeprefix("Question: ")
        shown = note_crowded_budget({"mode": mode, "object_id": object_id, "question": asked, "tokens": built["tokens"],
                                     "total_tokens": built["tokens"], "prompt": built["prompt"],
                                     "references": references, "note": ""}, max_tokens)
        return PromptResult.of(shown, mode, material="\n".join(c["text"] for c in built["chunks"]))
    subject, asked = _subject(graph, object_id, question)
    max_tokens = max_tokens or _default_budget(mode, search)
    if mode == "local":
        built = local_search(graph, asked, embedder, max_tokens, search.depth, runner=runner, subject=subject)
    elif mode == "global":
        built = global_search(graph, asked, embedder, runner, subject=subject, dry_run=dry_run, max_tokens=max_tokens,
                              map_tokens=search.map_tokens)
    else:
        raise TripartiteError(f"mode {mode!r} is unknown; use one of {', '.join(MODES)}")
    return PromptResult.of(note_crowded_budget({**built, "object_id": object_id}, max_tokens), mode)


def _object_rag(graph: Graph, embedder, object_id: str, question: str | None, max_tokens: int | None,
                options: dict) -> dict:
    """Vector RAG's prompt for an object: the top k (or those above a score, or as many as
    fit the budget) of the chunks ranked by the object's text, ranked here or given."""
    ranked = options.get("ranked")
    if ranked is None:
        return object_rag_prompt(graph, embedder, object_id, options.get("top_k", RAG_TOP_K), options.get("min_score"),
                                 question, max_tokens)
    found = object_text(graph, object_id)
    asked = question_or_default(question, found["question"])
    if max_tokens is not None:
        return rag_prompt(object_id, found["text"], ranked[:fitting(object_id, found["text"], ranked, asked, max_tokens)],
                          asked)
    chosen = ranked if options.get("min_score") is None else [c for c in ranked if c["score"] >= options["min_score"]]
    return rag_prompt(object_id, found["text"], chosen[:options.get("top_k")], asked)


def question_prompt(graph: Graph, question: str, mode: str, embedder, runner=None, analyzer=None,
                    max_tokens: int | None = None, alpha: float = 0.9, beta: float = 0.5,
                    selection: str = "floor", dry_run: bool = False, depth: int | None = None,
                    level: int | None = None, map_tokens: int | None = None,
                    search: SearchSettings = SearchSettings()) -> PromptResult:
    """A free-text question's prompt built one way. `runner` answers the LLM steps of local,
    global and hybrid search (keywords, map calls); `analyzer` reads the question for
    tripartite (alpha and beta apply where no selection was stored); depth is local search's,
    level and map_tokens global search's; `search` ([search] of the settings) gives each mode's
    budget, depth and map_tokens when they are None."""
    check_question(question)
    max_tokens = max_tokens or _default_budget(mode, search)
    budget = {"max_tokens": max_tokens} if max_tokens else {}
    local = {"depth": search.depth if depth is None else depth}
    mapped = {"level": level, "map_tokens": search.map_tokens if map_tokens is None else map_tokens}
    if mode == "tripartite":
        built = tripartite_question_prompt(graph, question, analyzer, alpha, beta, max_tokens, selection, dry_run)
    elif mode == "rag":
        built = question_rag_prompt(graph, embedder, question, max_tokens, RAG_TOP_K)
    elif mode == "hybrid":
        built = hybrid_search(graph, question, embedder, runner, **budget)
    elif mode == "local":
        built = local_search(graph, question, embedder, runner=runner, dry_run=dry_run, **budget, **local)
    elif mode == "global":
        built = global_search(graph, question, embedder, runner, dry_run=dry_run, **budget, **mapped)
    else:
        raise TripartiteError(f"mode {mode!r} is unknown; use one of {', '.join(QUESTION_MODES)}")
    return PromptResult.of(note_crowded_budget(built, max_tokens), mode, question=question)


def _default_budget(mode: str, search: SearchSettings) -> int | None:
    """The budget a mode fills when none is given (rag's top 5 and tripartite have none)."""
    return {"hybrid": search.hybrid_tokens, "local": search.local_tokens, "global": search.global_tokens}.get(mode)


def note_crowded_budget(built: dict, max_tokens: int | None) -> dict:
    """`built`, noting when a budget left the prompt without a passage: what every prompt holds
    besides its passages (the question, the frame) took it all, or what is left is smaller than
    the passages found. A prompt that cites nothing must not look like an answer."""
    if not max_tokens or built.get("references") or built.get("estimate"):
        return built
    fixed = "the question, the object's text and the prompt's frame" if built.get("object_id") else \
        "the question and the prompt's frame"
    if built["tokens"] > max_tokens:
        shorter = "" if built.get("object_id") else " or a shorter question"
        crowded = (f"no passage fits the budget of {max_tokens:,} tokens: {fixed} take {built['tokens']:,} alone; "
                   f"give a larger budget{shorter}")
    elif not built.get("note"):  # a builder that found nothing says why itself
        crowded = (f"no passage fits the budget of {max_tokens:,} tokens: {fixed} take {built['tokens']:,} and each "
                   "passage found needs more than the rest; give a larger budget")
    else:
        return built
    built["note"] = "; ".join(filter(None, [crowded, built.get("note")]))
    return built
