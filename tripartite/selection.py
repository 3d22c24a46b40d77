"""Prompt creation as node classification (paper, section 2.2), run from cypher/selection/.

Python only runs the four scripts in order and formats the result; w, P_c, the alpha step,
the Markov-blanket step and the prompt's material all come from Cypher.
"""
from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import Callable

import neo4j

from tripartite import scripts
from tripartite.tokens import count_tokens

DEFAULT_ALPHA = 0.9
DEFAULT_BETA = 0.5
DEFAULT_QUESTION = "Given the patient's history below, what should the clinician consider next, and why?"


@dataclass(frozen=True)
class SelectionReport:
    candidates: int
    selected_alpha: int
    selected_beta: int
    concepts: int


def select(driver: neo4j.Driver, database: str, alpha: float = DEFAULT_ALPHA, beta: float = DEFAULT_BETA,
           object_ids: list[str] | None = None,
           on_step: Callable[[str, float], None] | None = None) -> SelectionReport:
    """Score the candidates of some objects (or all), rebuild P_c for the concepts they touch
    (or all), and classify. With object_ids, the other objects' Evidence is rewritten only
    where a moved threshold changes its class; the report then counts those objects alone."""
    # Each step commits in small transactions (a million candidates do not fit in one); a run
    # that is interrupted leaves a mix, and running select again puts it right.
    def step(name: str, **params) -> None:
        started = time.perf_counter()
        scripts.run_autocommit(driver, database, f"selection/{name}", **params)
        if on_step:
            on_step(name, time.perf_counter() - started)

    concept_ids = None
    if object_ids is not None:  # before and after: concepts an object lost count too
        concept_ids = set(_touched_concepts(driver, database, object_ids))
    step("1_evidence", object_ids=object_ids, run=uuid.uuid4().hex)
    if object_ids is not None:
        concept_ids = sorted(concept_ids | set(_touched_concepts(driver, database, object_ids)))
    step("2_percentiles", concept_ids=concept_ids, alpha=alpha, beta=beta)
    step("3_select", object_ids=object_ids)
    counts = scripts.query(driver, database, "selection/summary", object_ids=object_ids)[0]
    return SelectionReport(counts["candidates"], counts["alpha"], counts["beta"], counts["concepts"])


def reclassify(driver: neo4j.Driver, database: str, alpha: float, beta: float) -> None:
    """Classify again with new alpha and beta, scores unchanged: an incremental run over no
    objects, so only the groups whose candidates cross a moved threshold are rewritten."""
    select(driver, database, alpha, beta, object_ids=[])


def _touched_concepts(driver: neo4j.Driver, database: str, object_ids: list[str]) -> list[str]:
    return [r["concept_id"] for r in scripts.query(driver, database, "selection/touched_concepts", object_ids=object_ids)]


def candidates(driver: neo4j.Driver, database: str, object_ids: list[str] | None = None) -> list[dict]:
    """Every candidate with w, p and its classification (cypher/selection/candidates.cypher)."""
    return scripts.query(driver, database, "selection/candidates", object_ids=object_ids)


def parameters(driver: neo4j.Driver, database: str) -> tuple[float | None, float | None]:
    """The alpha and beta of the last selection run."""
    rows = scripts.query(driver, database, "selection/parameters")
    return (rows[0]["alpha"], rows[0]["beta"]) if rows else (None, None)


def prompt_material(driver: neo4j.Driver, database: str, object_id: str,
                    max_per_concept: int | None = None) -> list[dict]:
    """Each concept of the object with its selected evidence in reading order; with
    max_per_concept, only each concept's best extracts by w (a budget beyond the paper)."""
    return scripts.query(driver, database, "selection/4_prompt", object_id=object_id, max_per_concept=max_per_concept)


def build_prompt(object_id: str, rows: list[dict], question: str, alpha: float, beta: float) -> dict:
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
