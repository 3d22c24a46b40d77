"""The ways to build a prompt, side by side, for one object (tripartite: the selection's prompt;
rag: the chunks closest to the object's text; local and global search: the object's text as
what is searched for) and for a free-text question (the same four, and hybrid). Each gives the
same shape, so `prompt`, `search`, `ask` and `eval` treat them alike: {mode, question, tokens,
total_tokens, prompt, references, material} (object_id for an object), where material is what
the prompt brings in from the documents (what a coverage judge reads)."""
from __future__ import annotations

from tripartite.ontology.plugins import question_or_default
from tripartite.infra.errors import TripartiteError
from tripartite.infra.graph import Graph
from tripartite.objects.store import object_text
from tripartite.search.constants import MODES, QUESTION_MODES, RAG_TOP_K
from tripartite.search.global_search import global_search
from tripartite.search.hybrid import hybrid_search
from tripartite.search.local_search import local_search
from tripartite.search.tripartite_question import tripartite_question_prompt
from tripartite.search.vector import object_rag_prompt, question_rag_prompt
from tripartite.selection import tripartite_prompt


def _subject(graph: Graph, object_id: str, question: str | None) -> tuple[dict, str]:
    found = object_text(graph, object_id)
    if found is None:
        raise TripartiteError(f"no object with id {object_id!r}; see `tripartite objects list`")
    return {"object_id": object_id, "text": found["text"]}, question_or_default(question, found["question"])


def chunk_trails(graph: Graph, chunk_ids: list[str]) -> list[dict]:
    """Numbered references for chunks, traced to Document > Section."""
    rows = graph.run("search/chunk_trails", chunk_ids=chunk_ids)
    return [{"n": n, "chunk_id": r["chunk_id"], "document": r["document"], "section_path": r["section_path"] or []}
            for n, r in enumerate(rows, start=1)]


def object_prompt(graph: Graph, object_id: str, mode: str, embedder, runner=None, question: str | None = None,
                  max_tokens: int | None = None, selection: dict | None = None, dry_run: bool = False) -> dict:
    """The object's prompt built one way. `selection` holds the Tripartite prompt's options
    (selection, max_per_concept, tokens_per_concept); `runner` answers the LLM steps of local
    (keywords) and global (map) search, offline when its provider is."""
    if mode == "tripartite":
        options = selection or {}
        built = tripartite_prompt(graph, object_id, question, options.get("max_per_concept"), max_tokens,
                                  options.get("selection", "floor"), options.get("tokens_per_concept"))
        evidence = [e for c in built["concepts"] for e in c["evidence"]]
        return {**built, "mode": mode, "question": built["prompt"].split("\n", 1)[0].removeprefix("Question: "),
                "total_tokens": built["tokens"], "material": "\n".join(e["text"] for e in evidence)}
    if mode == "rag":
        built = object_rag_prompt(graph, embedder, object_id, RAG_TOP_K, None, question, max_tokens)
        references = chunk_trails(graph, [c["chunk_id"] for c in built["chunks"]])
        asked = built["prompt"].split("\n", 1)[0].removeprefix("Question: ")
        return note_crowded_budget({"mode": mode, "object_id": object_id, "question": asked, "tokens": built["tokens"],
                                    "total_tokens": built["tokens"], "prompt": built["prompt"],
                                    "references": references, "note": "",
                                    "material": "\n".join(c["text"] for c in built["chunks"])}, max_tokens)
    subject, asked = _subject(graph, object_id, question)
    budget = {"max_tokens": max_tokens} if max_tokens else {}  # else each search's own default
    if mode == "local":
        built = local_search(graph, asked, embedder, runner=runner, subject=subject, **budget)
    elif mode == "global":
        built = global_search(graph, asked, embedder, runner, subject=subject, dry_run=dry_run, **budget)
    else:
        raise TripartiteError(f"mode {mode!r} is unknown; use one of {', '.join(MODES)}")
    return note_crowded_budget({**built, "object_id": object_id}, max_tokens or _default_budget(mode))


def question_prompt(graph: Graph, question: str, mode: str, embedder, runner=None, analyzer=None,
                    max_tokens: int | None = None, alpha: float = 0.9, beta: float = 0.5,
                    selection: str = "floor", dry_run: bool = False) -> dict:
    """A free-text question's prompt built one way. `runner` answers the LLM steps of local,
    global and hybrid search (keywords, map calls); `analyzer` reads the question for
    tripartite (alpha and beta apply where no selection was stored)."""
    budget = {"max_tokens": max_tokens} if max_tokens else {}  # else each mode's own default
    if mode == "tripartite":
        built = tripartite_question_prompt(graph, question, analyzer, alpha, beta, max_tokens, selection, dry_run)
    elif mode == "rag":
        built = question_rag_prompt(graph, embedder, question, max_tokens, RAG_TOP_K)
    elif mode == "hybrid":
        built = hybrid_search(graph, question, embedder, runner, **budget)
    elif mode == "local":
        built = local_search(graph, question, embedder, runner=runner, dry_run=dry_run, **budget)
    elif mode == "global":
        built = global_search(graph, question, embedder, runner, dry_run=dry_run, **budget)
    else:
        raise TripartiteError(f"mode {mode!r} is unknown; use one of {', '.join(QUESTION_MODES)}")
    return note_crowded_budget(built, max_tokens or _default_budget(mode))


def _default_budget(mode: str) -> int | None:
    """The budget a mode fills when none is given (rag's top 5 and tripartite have none)."""
    from tripartite.search import global_search, hybrid, local_search

    return {"hybrid": hybrid.MAX_TOKENS, "local": local_search.MAX_TOKENS, "global": global_search.MAX_TOKENS}.get(mode)


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
