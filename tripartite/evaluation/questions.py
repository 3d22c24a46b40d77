"""`tripartite eval --questions FILE`: every prompt builder on free-text questions, measured by
answers that a person wrote down, which none of the builders can see.

The file (YAML):

    questions:
      - question: How much salt a day is advised for people with raised blood pressure?
        answers: ["less than 1,500 mg", "2,300 mg"]   # phrases the prompt must contain, any case
      - question: Which kinds of medicine treat heart failure?
        chunks: ["heart-failure:1a2b3c4d5e6f"]       # or: chunks the prompt must cite
      - question: What do the guidelines say about living with each condition?
        answers: [...]
        scope: corpus    # a whole-corpus question: also judged by the sections its citations span

Per question, mode and budget: recall (the share of answer phrases the prompt's material holds,
or of answer chunks its references cite), tokens, and vector RAG filled to the same number of
tokens as the yardstick. For whole-corpus questions, span: the documents' top-level sections
(Document > first heading below the title) the cited chunks come from.
"""
from __future__ import annotations

import re
import statistics
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Annotated, Any, Callable

from pydantic import BeforeValidator, ValidationInfo

from tripartite.infra.entries import Entry, Text, checked
from tripartite.infra.errors import TripartiteError
from tripartite.search.constants import QUESTION_MODES

DEFAULT_BUDGETS = (500, 1000, 2000)
RAG_SAME = "rag (same tokens)"


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    answers: tuple[str, ...] = ()
    chunks: tuple[str, ...] = ()
    scope: str = "focused"   # or "corpus": a whole-corpus question


def _question(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"is {value!r}, not text; put it in quotes")
    return value.strip()


def _listed(kinds: tuple[type, ...], what: str):
    """A list of non-blank entries of these types: a bare string would be read letter by letter,
    a blank phrase is in every prompt; both would score as results."""
    def check(value: Any, info: ValidationInfo) -> tuple[str, ...]:
        value = [] if value is None else value
        if not isinstance(value, list):
            raise ValueError(f"must be a list, e.g. {info.field_name}: [{value!r}]")
        if not all(isinstance(v, kinds) and not isinstance(v, bool) and str(v).strip() for v in value):
            raise ValueError(f"must list non-blank {what}s only")
        return tuple(str(v).strip() for v in value)
    return BeforeValidator(check)


def _scope(value: Any) -> str:
    if value not in ("focused", "corpus"):
        raise ValueError(f"is {value!r}; use focused or corpus")
    return value


class QuestionEntry(Entry):
    """One question of the file: the keys it takes (a misspelt one would be dropped and the
    question scored another way) and their types."""
    id: Text = ""  # "": q1, q2, ... by its place
    question: Annotated[str, BeforeValidator(_question)]
    answers: Annotated[tuple[str, ...], _listed((str, int, float), "phrase")] = ()  # phrases the prompt must hold
    chunks: Annotated[tuple[str, ...], _listed((str,), "chunk id")] = ()  # or chunks it must cite
    scope: Annotated[str, BeforeValidator(_scope)] = "focused"  # or corpus: a whole-corpus question


_NAMED = {"question": "`question:`", "answers": "`answers:`", "chunks": "`chunks:`"}  # as the file writes them


def _naming(path: Path, n: int):
    """How an error names question n, or one of its keys."""
    return lambda key: f"{path}: question {n}:" + (f" {_NAMED.get(key, key)}" if key else "")


def _echo(question: str, width: int = 72) -> str:
    """A question as the run echoes it: whole when short, else cut at a word (where words are
    spaced) with " ..." after."""
    if len(question) <= width:
        return question
    cut = question[:width - 4]
    space = cut.rfind(" ")
    return (cut[:space] if space > width // 2 else cut).rstrip(" ,;:") + " ..."


def load_questions(path: Path) -> list[Question]:
    """The questions of a YAML file, checked: one line naming the file and the entry on error."""
    import yaml

    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TripartiteError(f"{path}: no such file; give a YAML file of questions (see `tripartite eval --help`)") from None
    except (UnicodeDecodeError, yaml.YAMLError) as exc:
        raise TripartiteError(f"{path}: not a readable YAML file ({str(exc).splitlines()[0]}); save it as UTF-8 YAML") from None
    entries = data.get("questions") if isinstance(data, dict) else data
    if not isinstance(entries, list) or not entries:
        raise TripartiteError(f"{path}: no questions; write a list under `questions:` (each with question and "
                              "answers or chunks)")
    found = []
    for n, entry in enumerate(entries, start=1):
        if not isinstance(entry, dict) or entry.get("question") is None or not str(entry["question"]).strip():
            raise TripartiteError(f"{path}: question {n} has no `question:` text")
        read = checked(QuestionEntry, entry, _naming(path, n), TripartiteError,
                       unknown="{where} unknown key(s) {keys}; a question takes {allowed}")
        if read.answers and read.chunks:  # recall is of one or the other: the chunks would be ignored
            raise TripartiteError(f"{path}: question {n} gives both `answers:` and `chunks:`; keep one (a prompt "
                                  "is scored by the phrases it holds or by the chunks it cites)")
        if not read.answers and not read.chunks:
            raise TripartiteError(f"{path}: question {n} has neither `answers:` nor `chunks:`; give what a right "
                                  "prompt must hold")
        qid = read.id or f"q{n}"
        if any(q.id == qid for q in found):
            raise TripartiteError(f"{path}: question {n} has the id {qid!r} of an earlier one; give each question its "
                                  "own id")
        found.append(Question(qid, read.question, read.answers, read.chunks, read.scope))
    return found


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text.casefold()).strip()


def recall(question: Question, material: str, cited: list[str]) -> float:
    """The share of the answer phrases the material holds, else of the answer chunks cited."""
    if question.answers:
        held = _normal(material)
        return sum(1 for a in question.answers if _normal(a) in held) / len(question.answers)
    return sum(1 for c in question.chunks if c in set(cited)) / len(question.chunks)


def top_sections(references: list[dict]) -> set[tuple[str, str]]:
    """The documents' top-level sections the references come from: (document, first heading
    below the document's title)."""
    from tripartite.selection.prompt import top_section

    return {top_section(ref) for ref in references}


@dataclass
class Row:
    question: str          # its id
    mode: str
    budget: int
    tokens: int
    total_tokens: int
    recall: float
    span: int | None       # top-level sections cited (whole-corpus questions only)
    rag_recall: float      # vector RAG filled to the same tokens
    rag_span: int | None
    note: str = ""


@dataclass
class Summary:
    mode: str
    budget: int
    questions: int
    median_tokens: float
    recall: float           # mean over the questions
    rag_recall: float       # vector RAG at the same tokens, mean
    wins: int               # questions where the mode's recall beats RAG's at the same tokens
    losses: int
    span: float | None = None       # mean top-level sections cited, whole-corpus questions
    rag_span: float | None = None


@dataclass
class QuestionEval:
    rows: list[Row]
    summaries: list[Summary]
    notes: list[str] = field(default_factory=list)


def measure(questions: list[Question], modes: list[str], budgets: list[int], build: Callable[[str, str, int], dict],
            on_question: Callable[[Question], None] = lambda q: None) -> QuestionEval:
    """Every question through every mode at every budget; `build(question, mode, budget)` gives a
    PromptResult. A mode that cannot run (no triplet graph, no reports) is noted once
    and left out."""
    rows: list[Row] = []
    notes: dict[str, str] = {}
    for q in questions:
        on_question(q)
        for mode in modes:
            if mode in notes:
                continue
            for budget in budgets:
                try:
                    built = build(q.question, mode, budget)
                except TripartiteError as exc:
                    notes[mode] = f"{mode}: {exc}"
                    break
                rag = build(q.question, "rag", max(200, built.tokens)) if mode != "rag" else built
                corpus = q.scope == "corpus"
                references = [r.model_dump() for r in built.references]
                rows.append(Row(q.id, mode, budget, built.tokens, built.total_tokens,
                                recall(q, built.material, built.cited()),
                                len(top_sections(references)) if corpus else None,
                                recall(q, rag.material, rag.cited()),
                                len(top_sections([r.model_dump() for r in rag.references])) if corpus else None,
                                built.note or ""))
    return QuestionEval(rows, summarize(rows), list(notes.values()))


def summarize(rows: list[Row]) -> list[Summary]:
    groups: dict[tuple[str, int], list[Row]] = {}
    for row in rows:
        groups.setdefault((row.mode, row.budget), []).append(row)
    summaries = []
    for (mode, budget), group in groups.items():
        spans = [r for r in group if r.span is not None]
        summaries.append(Summary(mode, budget, len(group), statistics.median(r.tokens for r in group),
                                 statistics.fmean(r.recall for r in group), statistics.fmean(r.rag_recall for r in group),
                                 sum(r.recall > r.rag_recall for r in group), sum(r.recall < r.rag_recall for r in group),
                                 statistics.fmean(r.span for r in spans) if spans else None,
                                 statistics.fmean(r.rag_span for r in spans) if spans else None))
    order = {m: i for i, m in enumerate(QUESTION_MODES)}
    return sorted(summaries, key=lambda s: (order.get(s.mode, 99), s.budget))


def table(summaries: list[Summary]) -> list[str]:
    lines = ["| mode | budget | questions | median tokens | recall | vector RAG, same tokens | better / worse "
             "| sections cited (whole-corpus) | RAG, same tokens |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for s in summaries:
        span = f"{s.span:.1f}" if s.span is not None else ""
        rag_span = f"{s.rag_span:.1f}" if s.rag_span is not None else ""
        same = "" if s.mode == "rag" else f"{s.rag_recall:.2f}"
        score = "" if s.mode == "rag" else f"{s.wins} / {s.losses}"
        lines.append(f"| {s.mode} | {s.budget:,} | {s.questions} | {s.median_tokens:,.0f} | {s.recall:.2f} | {same} "
                     f"| {score} | {span} | {'' if s.mode == 'rag' else rag_span} |")
    return lines


UNFILLED = 0.6  # a mode whose median prompt stays below this share of a budget has run out of material


def budget_notes(summaries: list[Summary]) -> list[str]:
    """A note for each mode whose prompts stop well short of a budget: what it found all fits,
    so that budget's row repeats a smaller one's prompts rather than measuring the budget."""
    notes = []
    for mode in dict.fromkeys(s.mode for s in summaries):
        short = [s for s in summaries if s.mode == mode and s.median_tokens < UNFILLED * s.budget]
        if short:
            notes.append(f"{mode}: its prompts stop short of the budget at "
                         + ", ".join(f"{s.budget:,} (median {s.median_tokens:,.0f} tokens)" for s in short)
                         + ": all it found fits, so a larger budget adds nothing")
    return notes


def write(out: Path, result: QuestionEval, context: dict) -> dict[str, Path]:
    import json

    from tripartite.evaluation.plot import write_question_plot

    out.mkdir(parents=True, exist_ok=True)
    files = {"markdown": out / "questions.md", "json": out / "questions.json", "plot": out / "questions.png"}
    notes = [f"- {n}" for n in result.notes]
    files["markdown"].write_text("\n".join(
        [f"# Questions: {context['questions']} from {context['file']}", "",
         f"Documents: {context['documents']}, chunks: {context['chunks']}; embedder {context['embedder']}; "
         f"LLM steps: {context['provider']}. Recall: the share of each question's answer phrases (or answer "
         "chunks) the prompt holds, mean over the questions; vector RAG is filled to each prompt's own tokens.",
         "", *table(result.summaries), "", *(["Notes:", *notes, ""] if notes else []),
         f"![recall against tokens]({files['plot'].name})", ""]), encoding="utf-8")
    files["json"].write_text(json.dumps({"context": context, "summaries": [asdict(s) for s in result.summaries],
                                         "rows": [asdict(r) for r in result.rows], "notes": result.notes},
                                        indent=2, ensure_ascii=False), encoding="utf-8")
    write_question_plot(files["plot"], result.summaries,
                        f"{context['questions']} questions ({Path(context['file']).name}): mean recall against "
                        "median prompt tokens")
    return files


def graph_notes(graph, modes: list[str]) -> list[str]:
    """What the graph misses that the measured modes read, once per run rather than per prompt: the
    figures then describe a graph that is not the whole of the documents."""
    from tripartite.search.gaps import analysis_gap, distribution_gap, triplet_graph_gaps

    on_triplets = ", ".join(m for m in modes if m in ("local", "global", "hybrid"))
    tripartite = "; ".join(filter(None, [analysis_gap(graph), distribution_gap(graph)])) if "tripartite" in modes else ""
    gaps = {"tripartite": tripartite,
            on_triplets: triplet_graph_gaps(graph) if on_triplets else ""}
    return [f"{mode}: {gap}" for mode, gap in gaps.items() if gap]


def check_answer_chunks(graph, path: Path, questions: list[Question]) -> None:
    """Refuse a file whose answer chunks the graph does not hold: those questions would score 0 in
    every mode, which reads as a result rather than as a stale file."""
    ids = sorted({c for q in questions for c in q.chunks})
    missing = set(graph.one("evaluation/missing_chunks", ids=ids)["missing"]) if ids else set()
    if missing:
        first = next(q for q in questions if missing & set(q.chunks))
        chunk = sorted(missing & set(first.chunks))[0]
        others = f" ({len(missing)} such ids in all)" if len(missing) > 1 else ""
        raise TripartiteError(f"{path}: question {first.id} cites chunk {chunk!r}, which the graph does not "
                              f"hold{others}; its document changed or is not ingested: ingest it, or write the "
                              "ids the graph holds (`tripartite trace ID` shows one) or answer phrases instead")


def evaluate_questions(settings, graph, path: Path, modes: list[str], budgets: list[int], out: Path,
                       offline: bool, concurrency: int | None, say: Callable[[str], None]) -> tuple[QuestionEval, dict]:
    """Load the questions, build every prompt on the graph as it is, write the files."""
    from contextlib import ExitStack

    from tripartite.analysis import Analyzer
    from tripartite.analysis.extractive import ExtractiveProvider
    from tripartite.infra.embeddings import chunk_embedder, local_embedder
    from tripartite.infra.llm import open_runner
    from tripartite.search.global_search import PointRanker
    from tripartite.search.modes import question_prompt
    from tripartite.selection.settings import effective

    questions = load_questions(path)
    counts = graph.one("evaluation/graph_counts")
    if not counts["chunks"]:
        raise TripartiteError("the graph has no chunks; ingest the documents the questions are about first "
                              "(`tripartite ingest PATH`)")
    check_answer_chunks(graph, path, questions)
    embedder = chunk_embedder(settings, offline)
    chosen = effective(graph, settings.selection)
    with ExitStack() as stack:
        search_runner = stack.enter_context(open_runner(settings, PointRanker(), offline=offline,
                                                        concurrency=concurrency))
        extracts_embedder = local_embedder(settings)
        reader = stack.enter_context(open_runner(settings, ExtractiveProvider(extracts_embedder), offline=offline,
                                                 concurrency=concurrency))
        analyzer = Analyzer(graph, extracts_embedder, reader)
        if settings.llm.configured and not offline and set(modes) - {"rag"}:
            search_runner.provider.check_reachable()  # before any prompt, not as the first question's failure

        def build(question: str, mode: str, budget: int):
            return question_prompt(graph, question, mode, embedder, search_runner, analyzer, budget, chosen.alpha,
                                   chosen.beta, chosen.mode, search=settings.search)

        say(f"{len(questions)} questions, modes {', '.join(modes)}, budgets {', '.join(map(str, budgets))}")
        result = measure(questions, modes, budgets, build, on_question=lambda q: say(f"  {q.id}: {_echo(q.question)}"))
        result.notes[:0] = graph_notes(graph, modes)
        result.notes += budget_notes(result.summaries)
        provider = f"{search_runner.provider.name}/{search_runner.provider.model}"
    context = {"file": str(path), "questions": len(questions), "documents": counts.get("documents"),
               "chunks": counts["chunks"], "embedder": embedder.name, "provider": provider,
               "modes": modes, "budgets": budgets}
    return result, write(out, result, context)
