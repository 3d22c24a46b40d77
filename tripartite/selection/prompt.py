"""The Tripartite prompt of one object (the paper's step 5): its material comes from
cypher/selection/prompt_material.cypher; this module only lays it out as text and JSON."""
from __future__ import annotations

from tripartite.infra.config import question_or_default
from tripartite.infra.errors import TripartiteError
from tripartite.infra.graph import Graph
from tripartite.infra.tokens import count_tokens
from tripartite.selection.run import parameters


class NoPrompt(TripartiteError):
    """The object has nothing to build a prompt from (unknown, or not analysed)."""


def prompt_material(graph: Graph, object_id: str, max_per_concept: int | None = None) -> list[dict]:
    """Each concept of the object with its selected evidence in reading order; with
    max_per_concept, only each concept's best extracts by w (a budget beyond the paper)."""
    return graph.run("selection/prompt_material", object_id=object_id, max_per_concept=max_per_concept)


def tripartite_prompt(graph: Graph, object_id: str, question: str | None = None,
                      max_per_concept: int | None = None) -> dict:
    """The prompt for one object, as build_prompt gives it. The question is the one given,
    else the one of the object's ontology plugin, else a generic one."""
    rows = prompt_material(graph, object_id, max_per_concept)
    if not rows:
        raise NoPrompt(f"object {object_id!r} has no analysed concepts; run `tripartite analyze` and "
                       "`tripartite select` first (see `tripartite objects list`)")
    alpha, beta = parameters(graph)
    question = question_or_default(question, next((r["question"] for r in rows if r["question"]), None))
    return build_prompt(object_id, rows, question, alpha, beta)


def build_prompt(object_id: str, rows: list[dict], question: str, alpha: float | None, beta: float | None) -> dict:
    """The prompt text and its JSON form: {object_id, alpha, beta, tokens, prompt, concepts}."""
    references: list[dict] = []
    numbers: dict[str, int] = {}  # a chunk cited under several concepts keeps one number
    lines = [f"Question: {question}", "", f"Object {object_id}: what it says about each concept, and what the "
             "reference documents say about that concept (numbers in brackets point to the references).", ""]
    concepts = []
    for n, row in enumerate(rows, start=1):
        lines.append(f"{n}. {row['name']}: {row['summary']}")
        evidence = []
        for item in row["evidence"]:
            if item["chunk_id"] not in numbers:
                references.append(item)
                numbers[item["chunk_id"]] = len(references)
            ref = numbers[item["chunk_id"]]
            lines.append(f"   [{ref}] {item['text']}")
            evidence.append({"chunk_id": item["chunk_id"], "document": item["document"],
                             "section_path": item["section_path"] or [], "text": item["text"],
                             "w": item["w"], "p": item["p"], "reason": item["reason"]})
        concepts.append({"concept_id": row["concept_id"], "name": row["name"], "summary": row["summary"],
                         "evidence": evidence})
        lines.append("")
    if references:
        lines.append("References:")
        for ref, item in enumerate(references, start=1):
            path = " > ".join(item["section_path"] or [])
            lines.append(f"[{ref}] {item['document']} > {path} (chunk {item['chunk_id']})")
    prompt = "\n".join(lines).rstrip() + "\n"
    return {"object_id": object_id, "alpha": alpha, "beta": beta, "tokens": count_tokens(prompt),
            "prompt": prompt, "concepts": concepts}
