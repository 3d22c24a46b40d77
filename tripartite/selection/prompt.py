"""The Tripartite prompt of one object (the paper's step 5): its material, the floor and the
token budget come from cypher/selection/prompt_material.cypher; this module lays it out as
text and JSON, and checks the laid-out prompt against the budget.

Layout: the question; then the object's concepts, each with what the object says about it
and the extracts the references say about it. Concepts for which the object says the very
same thing are one item; a sentence of the object said under an earlier item is pointed to
("as in 2"), not repeated; a chunk cited under several concepts is quoted once and then only
referenced by its number; references are numbered once per chunk, listed under their
document's title, and name the chunk by its section and place (the JSON form gives its id).
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache

from tripartite.ontology.plugins import question_or_default
from tripartite.infra.errors import TripartiteError
from tripartite.infra.graph import Graph
from tripartite.infra.quoting import quote
from tripartite.infra.secrets import bounded
from tripartite.infra.tokens import count_prompt_tokens, count_tokens
from tripartite.lexical.sentences import sentences_of
from tripartite.lexical.trails import path_below_title, references_block
from tripartite.selection.constants import SELECTIONS
from tripartite.selection.engine import Engine, for_prompts
from tripartite.selection.findings import says_no_more

# A prompt's preamble says what its items hold; one that cites nothing (a budget no extract fits,
# or documents silent on the object's concepts) does not announce references.
REFERENCES_CLAUSE = ", then what the references [n] say."
NO_REFERENCES_CLAUSE = " (no reference extract is included)."
PREAMBLE = "Object {object_id}, concept by concept: what it says" + REFERENCES_CLAUSE
# A bullet of the object's own text (notes list findings as "• Cardiovascular: ..."): an extract
# of such a list is read, and laid out again, passage by passage.
PASSAGE_SEPARATOR = " • "


class NoPrompt(TripartiteError):
    """The object has nothing to build a prompt from (unknown, or not analysed)."""


class StaleSelection(TripartiteError):
    """The stored selection does not reflect the graph (never run, interrupted, or inputs changed)."""


def check_fresh(graph: Graph, object_id: str) -> dict:
    """Refuse, in one line naming the command to run, a selection a prompt cannot trust; else
    what it was made with: alpha, beta, chunks, unanalysed_chunks."""
    row = graph.one("selection/freshness", object_id=object_id)
    if row["freshness"] != "fresh":
        raise StaleSelection(row["hint"])
    return row


def unanalysed_chunks_note(made: dict) -> str:
    """What a prompt lacks when its selection was made with chunks not analysed for every
    loaded concept (their extracts are in no candidate); "" when none were."""
    if not made.get("unanalysed_chunks"):
        return ""
    return (f"{made['unanalysed_chunks']:,} of {made['chunks']:,} chunks were not analysed for every loaded concept "
            "when the selection was made, so this prompt lacks their extracts: run `tripartite analyze`, then "
            "`tripartite select`")


def why_no_prompt(graph: Graph, object_id: str) -> str:
    """Why an object has no prompt material, in one line that names what to do."""
    state = graph.one("objects/object_state", object_ids=[object_id])
    if state is None:
        return f"no object with id {object_id!r}; see `tripartite objects list`"
    if not state["concepts_loaded"]:
        return (f"no ontology is loaded, so object {object_id!r} has no concepts to show evidence for; load one "
                "with `tripartite ontology load PLUGIN`, then run `tripartite analyze` and `tripartite select`")
    if state["analysis_error"]:
        return (f"the analysis of object {object_id!r} failed ({bounded(state['analysis_error'])}); fix the cause and run "
                "`tripartite analyze` again, which retries it (then `tripartite select`)")
    if state["analysed"]:
        return (f"object {object_id!r} was analysed and concerns none of the loaded concepts, so there is no "
                "evidence to show; check its text and the ontology (`tripartite objects list`)")
    return (f"object {object_id!r} has not been analysed; run `tripartite analyze` and `tripartite select` first "
            "(see `tripartite objects list`)")


def prompt_material(graph: Graph, object_id: str, max_per_concept: int | None = None, selection: str = "floor",
                    max_tokens: int | None = None, fixed_tokens: int = 0,
                    tokens_per_concept: int | None = None, engine: Engine | None = None) -> list[dict]:
    """Each concept of the object with its chosen evidence in reading order (see the script;
    the plugin's procedure where the server has it, engine.for_prompts)."""
    from neo4j.exceptions import ClientError

    params = dict(object_id=object_id, max_per_concept=max_per_concept, selection=selection, max_tokens=max_tokens,
                  fixed_tokens=fixed_tokens, tokens_per_concept=tokens_per_concept)
    chosen = engine or for_prompts(graph)
    try:
        return graph.run(chosen.script("prompt_material"), **params)
    except ClientError as error:
        if engine is not None or chosen.name != "plugin" or "ProcedureNotFound" not in (error.code or ""):
            raise
        # The server was restarted without the plugin since this Graph asked: ask again.
        return graph.run(for_prompts(graph, forget=True).script("prompt_material"), **params)


def concept_codes(graph: Graph, concept_ids: list[str], wanted: list[str]) -> dict[str, list[str]]:
    """The codes a prompt names for each concept: with `wanted` ["all"], its notation, source
    term and cross-references; else those whose prefix (before the colon) begins with one of
    `wanted` (ICD10CM, MESH, SNOMEDCT: the last also takes SNOMEDCT_US_2025_09_01), and its
    notation when `wanted` names "notation". Case does not matter."""
    prefixes = tuple(w.strip().lower() for w in wanted if w.strip())

    def kept(code: str) -> bool:
        if "all" in prefixes:
            return True
        prefix = code.split(":", 1)[0].lower() if ":" in code else "notation"
        return prefix.startswith(prefixes)

    rows = graph.run("ontology/concept_codes", concept_ids=concept_ids) if prefixes else []
    return {row["concept_id"]: list(dict.fromkeys(c for c in row["codes"] if kept(c))) for row in rows}


def tripartite_prompt(graph: Graph, object_id: str, question: str | None = None, max_per_concept: int | None = None,
                      max_tokens: int | None = None, selection: str = "floor",
                      tokens_per_concept: int | None = None, percentiles: bool = True,
                      codes: list[str] | None = None) -> dict:
    """The prompt for one object, as build_prompt gives it. The question is the one given,
    else the one of the object's ontology plugin, else a generic one. The budget is
    max_tokens, else tokens_per_concept for each concept of the object (plus the question
    and headings), else none; only max_tokens may take a concept's last extract. The script
    fits its size estimate to the budget; the laid-out prompt is then measured, and the
    script's budget searched for the largest prompt that fits.
    Each extract's P_c(w) goes into the JSON form unless `percentiles` is False (the text does
    not show it, and it costs a query). `codes` names the concepts' codes to print beside their
    names (concept_codes); the budget counts them."""
    if selection not in SELECTIONS:
        raise TripartiteError(f"selection {selection!r} is unknown; use one of {', '.join(SELECTIONS)}")
    budgeted = max_tokens is not None or tokens_per_concept is not None
    named_codes: dict[str, list[str]] | None = None

    def material(budget: int | None, per_concept: int | None = tokens_per_concept) -> list[dict]:
        nonlocal question
        if question is None and budgeted:  # its size is part of the budget: know it first
            found = graph.one("objects/object_question", object_id=object_id)
            question = question_or_default(None, found["question"] if found else None)
        fixed = count_tokens(f"Question: {question or ''}\n\n{PREAMBLE.format(object_id=object_id)}\n\nReferences:\n") \
            if budget is not None or tokens_per_concept is not None else 0
        return prompt_material(graph, object_id, max_per_concept, selection, budget, fixed, per_concept)

    def laid_out(rows: list[dict]) -> tuple[dict, int, int | None]:
        nonlocal question, named_codes
        if not rows:
            raise NoPrompt(why_no_prompt(graph, object_id))
        question = question_or_default(question, next((r["question"] for r in rows if r["question"]), None))
        if codes and named_codes is None:  # the same concepts at every budget: asked once
            named_codes = concept_codes(graph, [r["concept_id"] for r in rows], codes)
        built = build_prompt(object_id, rows, question, alpha, beta, selection, rows[0]["budget"],
                             dropped=rows[0]["dropped"], codes=named_codes)
        return built, rows[0]["dropped"], rows[0]["budget"]

    # The freshness check runs while the material is read (two round trips in the time of one);
    # a selection it refuses is refused before anything else is said.
    with ThreadPoolExecutor(max_workers=1) as pool:
        freshness = pool.submit(check_fresh, graph, object_id)
        try:
            rows = material(max_tokens)
        except Exception:
            freshness.result()
            raise
        made = freshness.result()
    alpha, beta = made["alpha"], made["beta"]
    built, dropped, budget = laid_out(rows)
    if max_tokens is not None:
        built = _fitted(built, dropped, budget, lambda tried: laid_out(material(tried)))
    elif budget is not None:  # per concept: the search moves the allowance, which never takes a best extract
        concepts, fixed = len(rows), budget - tokens_per_concept * len(rows)
        built = _fitted(built, dropped, budget,
                        lambda tried: laid_out(material(None, max(0, (tried - fixed) // concepts))))
    if percentiles:
        add_percentiles(graph, built)
    notes = [budget_note(built, max_tokens)] if max_tokens is not None and (
        built["tokens"] > max_tokens or (built["dropped"] and not built["references"])) else []
    notes.append(unanalysed_chunks_note(made))
    if any(notes):
        built["note"] = "; ".join(filter(None, notes))
    return built


def budget_note(built: dict, max_tokens: int) -> str:
    """Why a budgeted prompt cites nothing or is longer than its budget: what is left once every
    droppable extract is gone (the question, and what the object says about each of its
    concepts) takes the budget, or more."""
    if built["tokens"] <= max_tokens:
        return (f"no reference extract fits the budget of {max_tokens:,} tokens: the question and what the object "
                f"says about its {len(built['concepts'])} concepts take {built['tokens']:,}, and no extract fits "
                f"beside them; give a larger budget")
    if built["references"]:
        return (f"the prompt is {built['tokens']:,} tokens, over the budget of {max_tokens:,}, with "
                f"{len(built['references'])} reference(s) left; give a budget above {built['tokens']:,} tokens")
    return (f"the prompt is {built['tokens']:,} tokens, over the budget of {max_tokens:,}: the question and what the "
            f"object says about its {len(built['concepts'])} concepts take that much, so no reference extract fits; "
            f"give a budget above {built['tokens']:,} tokens")


def _fitted(built: dict, dropped: int, max_tokens: int, attempt) -> dict:
    """The script's size model is close but not exact: search its budget for the largest
    laid-out prompt that fits (a few more queries, each a few milliseconds)."""
    fits = built["tokens"] <= max_tokens
    best, low, high = (built, max_tokens, None) if fits else (None, None, max_tokens)
    for _ in range(8):
        if fits and dropped == 0:
            break  # everything is in and it fits
        if low is None:
            budget = high - max(1, built["tokens"] - max_tokens)
        elif high is None:
            budget = low + max(1, max_tokens - built["tokens"])
        else:
            budget = (low + high) // 2
        if budget <= 0 or budget in (low, high):
            break
        built, dropped, _ = attempt(budget)
        built["max_tokens"] = max_tokens
        fits = built["tokens"] <= max_tokens
        if fits:
            low = budget
            best = built if best is None or built["tokens"] >= best["tokens"] else best
        else:
            high = budget
    return best or built


def build_prompt(object_id: str, rows: list[dict], question: str, alpha: float | None, beta: float | None,
                 selection: str = "floor", max_tokens: int | None = None, preamble: str | None = None,
                 dropped: int = 0, codes: dict[str, list[str]] | None = None) -> dict:
    """The prompt text and its JSON form: {object_id, selection, alpha, beta, max_tokens (the
    budget it was fitted to, if any), tokens, dropped (the extracts the budget left out), prompt,
    concepts, references}. `preamble` replaces the object's (a question's prompt says what its
    items are); `codes` gives the codes printed after a concept's name, in parentheses (and listed in
    the JSON form when given)."""
    asked_codes, codes = codes is not None, codes or {}

    def named(row: dict) -> str:
        found = codes.get(row["concept_id"])
        return f"{row['name']} ({'; '.join(found)})" if found else row["name"]

    references: list[dict] = []
    numbers: dict[str, int] = {}        # a chunk keeps one reference number
    quoted: dict[str, set[str]] = {}    # the sentences of each chunk already in the prompt
    evidence: dict[int, list[dict]] = {}  # each row's extracts as the JSON form lists them
    said: dict[str, int] = {}  # each sentence of the object already in the prompt, and the item saying it
    lines = [f"Question: {quote(question)}", "", preamble or PREAMBLE.format(object_id=object_id), ""]
    for n, group in enumerate(_grouped(rows), start=1):
        lines.append(f"{n}. {', '.join(named(row) for row in group)}{object_says(group[0]['summary'] or '', n, said)}")
        # A chunk the item's concepts cite: one line, naming each concept that cites it.
        citing: dict[str, list[tuple[dict, dict]]] = {}
        for row in group:
            cited = evidence[id(row)] = []
            for item in row["evidence"]:
                chunk_id = item["chunk_id"]
                if chunk_id not in numbers:
                    references.append({"n": len(references) + 1, "chunk_id": chunk_id, "document": item["document"],
                                       "section_path": item["section_path"] or [], "index": item.get("index")})
                    numbers[chunk_id] = len(references)
                citing.setdefault(chunk_id, []).append((row, item))
                cited.append({"chunk_id": chunk_id, "document": item["document"],
                              "section_path": item["section_path"] or [], "text": item["text"], "w": item["w"],
                              "p": item.get("p"), "reason": item["reason"], "n": numbers[chunk_id]})
        for chunk_id, pairs in citing.items():
            label = f"({', '.join(row['name'] for row, _ in pairs)}) " if len(group) > 1 else ""
            seen = quoted.setdefault(chunk_id, set())
            new = [s for _, item in pairs for s in quoted_sentences(item["text"] or "") if s not in seen]
            new = list(dict.fromkeys(new))
            seen.update(new)
            lines.append(f"   [{numbers[chunk_id]}] {label}{quote(' '.join(new)) if new else '(quoted above)'}")
        lines.append("")
    if references:
        lines.append("References:")
        lines += references_block(references)
    else:
        lines[2] = lines[2].replace(REFERENCES_CLAUSE, NO_REFERENCES_CLAUSE)
    prompt = "\n".join(lines).rstrip() + "\n"
    concepts = [{"concept_id": row["concept_id"], "name": row["name"], "summary": row["summary"],
                 "evidence": evidence[id(row)], **({"codes": codes.get(row["concept_id"], [])} if asked_codes else {})}
                for row in rows]
    return {"object_id": object_id, "selection": selection, "alpha": alpha, "beta": beta, "max_tokens": max_tokens,
            "tokens": count_prompt_tokens(prompt), "dropped": dropped, "prompt": prompt, "concepts": concepts,
            "references": references}


@lru_cache(maxsize=16384)
def quoted_sentences(text: str) -> tuple[str, ...]:
    """An extract's sentences, in the order a prompt quotes them. Kept for the process: the
    prompts one process builds (eval, the MCP server, a retriever) cite the same extracts over
    and over, and splitting them is a third of laying out a prompt."""
    return tuple(s for paragraph in sentences_of(text) for s in paragraph)


def add_percentiles(graph: Graph, built: dict) -> None:
    """Set p = P_c(w) on each extract of a built prompt (cypher/selection/percentiles.cypher)."""
    wanted = [{"concept_id": c["concept_id"], "ws": sorted({e["w"] for e in c["evidence"]})}
              for c in built["concepts"] if c["evidence"]]
    found = {(r["concept_id"], r["w"]): r["p"] for r in graph.run("selection/percentiles", concepts=wanted)} if wanted else {}
    for concept in built["concepts"]:
        for extract in concept["evidence"]:
            extract["p"] = found.get((concept["concept_id"], extract["w"]))


def object_says(summary: str, n: int, said: dict[str, int]) -> str:
    """What item n says the object says, after its concepts' names: the sentences no earlier
    sentence said (selection/findings.says_no_more: "Cardiovascular: Denies chest pain." after
    "He denies chest pain and abdominal pain." says nothing new), and "as in 2" for those item 2
    said (recorded in `said`)."""
    passages = [s for part in summary.split(PASSAGE_SEPARATOR) for s in quoted_sentences(part.strip())]
    new: list[str] = []
    earlier: set[int] = set()
    for sentence in dict.fromkeys(passages):
        before = said.get(sentence)
        if before is None:
            before = next((said[s] for s in said if says_no_more(sentence, s)), None)
        if before is not None:
            earlier.add(before)
        elif not any(says_no_more(sentence, s) for s in new):
            new.append(sentence)
    for sentence in new:
        said[sentence] = n
    joiner = PASSAGE_SEPARATOR if PASSAGE_SEPARATOR in summary else " "
    pointer = f"as in {', '.join(map(str, sorted(earlier)))}" if earlier else ""
    if not new:
        return f": {pointer}." if pointer else ": "
    return f"{f' ({pointer})' if pointer else ''}: {quote(joiner.join(new))}"


def top_section(ref: dict) -> tuple[str, str]:
    """The document's top-level section a reference comes from: (document, first heading below
    the title)."""
    path = path_below_title(ref)
    return (ref.get("document") or "", path[0] if path else "")


def _grouped(rows: list[dict]) -> list[list[dict]]:
    """Concepts for which the object says word for word the same thing, together, in the
    order of their first member."""
    groups: dict[str, list[dict]] = {}
    for row in rows:
        groups.setdefault((row["summary"] or "").strip(), []).append(row)
    return list(groups.values())
