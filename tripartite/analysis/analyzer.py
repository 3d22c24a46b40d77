"""`tripartite analyze`: the concept-anchored pre-analysis of chunks and objects.

For every chunk, one call covers all the concepts it may concern: a pre-filter keeps the
concepts whose name or synonym appears in the chunk or whose description is close to the
chunk in embedding space, at most CONCEPTS_PER_CALL of them (named ones first, then the
closest), so a chunk's prompt stays bounded however large the ontology; the others are
recorded as analysed without a call. Every object gets one call covering all concepts, or,
with more than MAX_OBJECT_CONCEPTS to read it for, the MAX_OBJECT_CONCEPTS it names or comes
closest to. Results are written in batches as they arrive, and
every answer is cached the moment it arrives, so a killed run resumes without paying twice.
"""
from __future__ import annotations

import hashlib
import json
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Callable

import numpy as np

from tripartite.analysis.prompts import (DEFAULT_CHUNK_PROMPT, DEFAULT_OBJECT_PROMPT, concept_lines,
                                         plugin_templates, prompt_version, render)
from tripartite.infra.config import AnalysisSettings
from tripartite.infra.graph import Graph
from tripartite.analysis.extractive import synonym_pattern
from tripartite.analysis.schema import SCHEMA_VERSION, ExtractionTask
from tripartite.ontology.concept import ConceptInfo
from tripartite.infra.llm.runner import ANSWER_TOTALS, LLMRunner
from tripartite.infra.secrets import bounded
from tripartite.infra.tokens import count_tokens

CONCEPTS_PER_CALL = 40
MAX_OBJECT_CONCEPTS = 3 * CONCEPTS_PER_CALL  # an object is read in at most three calls
WRITE_EVERY = 32


@dataclass
class Plan:
    chunk_tasks: list[ExtractionTask] = field(default_factory=list)
    object_tasks: list[ExtractionTask] = field(default_factory=list)
    skipped: dict[str, list[str]] = field(default_factory=dict)  # chunk id -> concepts filtered out
    skipped_objects: dict[str, list[str]] = field(default_factory=dict)  # object id -> concepts filtered out
    pairs_total: int = 0       # (concept, chunk) pairs to look at: the naive scheme's call count
    pairs_candidate: int = 0   # pairs that survive the pre-filter


class Analyzer:
    """Plans and runs the pre-analysis over the concepts loaded when it first looks (all
    ontologies', or one's)."""

    def __init__(self, graph: Graph, embedder, runner: LLMRunner, prefilter: bool = True,
                 ontology: str | None = None, persist_glosses: bool = True,
                 prefilter_similarity: float = AnalysisSettings.prefilter_similarity):
        self.graph = graph
        self.embedder = embedder
        self.runner = runner
        self.prefilter = prefilter
        self.prefilter_similarity = prefilter_similarity  # [analysis] prefilter_similarity
        self.ontology = ontology
        self.persist_glosses = persist_glosses  # False where only reading (a question, an MCP server)
        self._templates: dict[str, dict[str, str]] | None = None
        self._concepts: dict[str, ConceptInfo] | None = None
        self.ontology_of: dict[str, str] = {}
        self._gloss: dict[str, np.ndarray] = {}

    @property
    def concepts(self) -> dict[str, ConceptInfo]:
        if self._concepts is None:
            rows = self.graph.run("analysis/concepts", ontology=self.ontology)
            self._concepts = {r["id"]: ConceptInfo(r["id"], r["name"], tuple(r["synonyms"]), r["description"])
                              for r in rows}
            self.ontology_of = {r["id"]: r["ontology"] for r in rows}
            for r in rows:  # glosses embedded by an earlier run with this model, for this very text
                if r["gloss_embedding"] and r["gloss_key"] == self._gloss_key(self._concepts[r["id"]]):
                    self._gloss[r["id"]] = np.asarray(r["gloss_embedding"], dtype=np.float32)
        return self._concepts

    def _gloss_key(self, concept: ConceptInfo) -> str:
        return f"{self.embedder.name}:{hashlib.sha256(concept.gloss.encode('utf-8')).hexdigest()[:16]}"

    @property
    def templates(self) -> dict[str, dict[str, str]]:
        if self._templates is None:  # read when first needed, like the concepts
            self._templates = plugin_templates(self.graph)
        return self._templates

    def _template(self, ontology: str, stage: str) -> str:
        default = DEFAULT_CHUNK_PROMPT if stage == "chunk" else DEFAULT_OBJECT_PROMPT
        return self.templates.get(ontology, {}).get(stage, default)

    def _gloss_vectors(self, ids: list[str]) -> np.ndarray:
        missing = [i for i in ids if i not in self._gloss]
        if missing:  # embedded once and kept on the concept: thousands of concepts cost seconds each run otherwise
            vectors = self.embedder.embed([self.concepts[i].gloss for i in missing])
            for cid, vector in zip(missing, vectors):
                self._gloss[cid] = vector
            if self.persist_glosses:
                self.graph.run("analysis/write_gloss_embeddings",
                               rows=[{"id": cid, "embedding": vector.tolist(), "key": self._gloss_key(self.concepts[cid])}
                                     for cid, vector in zip(missing, vectors)])
        return np.stack([self._gloss[i] for i in ids])

    def _tasks(self, stage: str, item_id: str, text: str, concept_ids: list[str], **fields: str) -> list[ExtractionTask]:
        """One task per ontology (each has its own prompt), split if very many concepts."""
        tasks = []
        by_ontology: dict[str, list[str]] = {}
        for cid in concept_ids:
            by_ontology.setdefault(self.ontology_of[cid], []).append(cid)
        for ontology, ids in sorted(by_ontology.items()):
            template = self._template(ontology, stage)
            for start in range(0, len(ids), CONCEPTS_PER_CALL):
                concepts = [self.concepts[i] for i in ids[start:start + CONCEPTS_PER_CALL]]
                prompt = render(template, concepts=concept_lines(concepts), text=text, **fields)
                tasks.append(ExtractionTask(stage, item_id, prompt, text, tuple(concepts)))
        return tasks

    @property
    def current(self) -> str:
        """Who answers in this run: provider/model, as analysed_by records it."""
        return f"{self.runner.provider.name}/{self.runner.provider.model}"

    def plan(self, redo: bool = False, only_provider: str | None = None) -> Plan:
        """The tasks of the pairs not yet analysed; with redo, also every chunk and object
        analysed by another provider or model (only that provider's, with only_provider)."""
        plan = Plan()
        ids = sorted(self.concepts)
        if not ids:
            return plan
        scope = {"redo": {"current": self.current, "only_provider": only_provider} if redo else None}
        for row in self.graph.run("analysis/chunks_to_analyse", concept_ids=ids, **scope):
            missing = row["missing"]
            plan.pairs_total += len(missing)
            candidates = (self._candidates(row, missing, threshold=self.prefilter_similarity) if self.prefilter
                          else missing)
            plan.pairs_candidate += len(candidates)
            plan.skipped[row["id"]] = [c for c in missing if c not in candidates]
            if candidates:
                plan.chunk_tasks += self._tasks("chunk", row["id"], row["text"], candidates,
                                                document=row["document"] or "", section=row["section"] or "")
            elif plan.skipped[row["id"]]:
                plan.chunk_tasks.append(ExtractionTask("chunk", row["id"], "", row["text"], ()))
        for row in self.graph.run("analysis/objects_to_analyse", concept_ids=ids, **scope):
            missing = row["missing"]
            candidates = (self._candidates({**row, "embedding": None}, missing, MAX_OBJECT_CONCEPTS, threshold=None)
                          if self.prefilter and len(missing) > MAX_OBJECT_CONCEPTS else missing)
            offered = set(candidates)
            plan.skipped_objects[row["id"]] = [c for c in missing if c not in offered]
            fields = {"kind": row["kind"] or "object", "object_id": row["id"]}
            plan.object_tasks += (self._tasks("object", row["id"], row["text"], candidates, **fields) if candidates
                                  else [ExtractionTask("object", row["id"], "", row["text"], ())])
        return plan

    def _candidates(self, row: dict, missing: list[str], limit: int = CONCEPTS_PER_CALL,
                    threshold: float | None = AnalysisSettings.prefilter_similarity) -> list[str]:
        """The concepts the text names, then those whose gloss is closest to it, at most `limit`
        (and, with a threshold, only named ones or those at least that close). Objects are read
        with no threshold: they paraphrase (shortness of breath for dyspnoea)."""
        text = row["text"]
        vector = np.asarray(row["embedding"] or [], dtype=np.float32)
        if vector.shape != (self.embedder.dimensions,):  # not embedded, or by another model (OpenAI)
            vector = self.embedder.embed([text])[0]
        similarity = self._gloss_vectors(missing) @ vector
        ranked = sorted(((not synonym_pattern(self.concepts[cid], inflected=True).search(text), -float(sim), cid)
                         for cid, sim in zip(missing, similarity)))
        kept = {cid for unnamed, minus_sim, cid in ranked[:limit]
                if not unnamed or threshold is None or -minus_sim >= threshold}
        return [cid for cid in missing if cid in kept]

    def execute(self, plan: Plan, on_done: Callable[[int], None] = lambda n: None) -> list[str]:
        """Run the plan; return the errors of tasks that failed (they stay pending, and the
        graph records the failure on the chunk or object until an answer replaces it)."""
        errors: list[str] = []
        failures: list[dict] = []
        pending: dict[str, list[dict]] = {"chunk": [], "object": []}
        provider = self.runner.provider
        versions: dict[tuple[str, str], str] = {}  # (ontology, stage) -> version of its template

        def version_of(task: ExtractionTask) -> str:
            key = (self.ontology_of[task.concepts[0].id], task.stage)
            if key not in versions:
                versions[key] = prompt_version(self._template(*key))
            return versions[key]

        def flush(stage: str) -> None:
            rows = pending[stage]
            if not rows:
                return
            summaries = [e for r in rows for e in r["extracts"]]
            if summaries:
                for e, vector in zip(summaries, self.embedder.embed([e["summary"] for e in summaries])):
                    e["embedding"] = vector.tolist()
                    e["tokens"] = count_tokens(e["summary"])  # what the extract costs in a prompt
            params = {"rows": rows, "provider": provider.name, "model": provider.model,
                      "embedding_model": self.embedder.name}
            if stage == "object":
                self.graph.run("analysis/write_object_extracts", **params)
            elif summaries:  # new chunk extracts can change every object's candidates
                self.graph.write_transaction(lambda tx: (tx.run("analysis/write_chunk_extracts", **params),
                                                         tx.run("selection/inputs_changed", what="chunk extracts")))
            else:
                self.graph.run("analysis/write_chunk_extracts", **params)
            pending[stage] = []

        empty = [t for t in plan.chunk_tasks + plan.object_tasks if not t.concepts]
        real = [t for t in plan.chunk_tasks + plan.object_tasks if t.concepts]
        skipped = {"chunk": plan.skipped, "object": plan.skipped_objects}
        for task in empty:  # every candidate was filtered out: recorded without a call
            pending[task.stage].append({"item_id": task.item_id, "analysed": skipped[task.stage].get(task.item_id, []),
                                        "extracts": [], "prompt_version": SCHEMA_VERSION, "by": None})
            on_done(1)
        flush("chunk")
        flush("object")
        skipped_written: set[str] = set()
        for outcome in self.runner.run(real):
            task = outcome.task
            on_done(1)
            if outcome.skipped:
                continue
            if outcome.error:
                errors.append(outcome.error)
                failures.append({"item_id": task.item_id, "stage": task.stage, "error": bounded(outcome.error)})
                continue
            analysed = [c.id for c in task.concepts]
            if (task.stage, task.item_id) not in skipped_written:
                analysed += skipped[task.stage].get(task.item_id, [])
                skipped_written.add((task.stage, task.item_id))
            extracts = [{"concept_id": cid, "summary": text} for cid, text in outcome.result.items() if text]
            pending[task.stage].append({"item_id": task.item_id, "analysed": analysed, "extracts": extracts,
                                        "prompt_version": version_of(task), "by": self.current})
            if len(pending[task.stage]) >= WRITE_EVERY:
                flush(task.stage)
        flush("chunk")
        flush("object")
        if failures:
            self.graph.run("analysis/record_failures", failures=failures)
        return errors

    def run(self, plan: Plan, on_done: Callable[[int], None] = lambda n: None) -> dict:
        """Execute the plan and record its accounting: {"errors", "stages", totals...}. An
        endpoint that does not answer at all stops the run with one line before any call."""
        started = time.time()
        provider = self.runner.provider
        tasks = plan.chunk_tasks + plan.object_tasks
        if not provider.offline and any(t.concepts and not self.runner.is_cached(t) for t in tasks):
            provider.check_reachable()
        errors = self.execute(plan, on_done)
        return {"errors": errors, "stopped": self.runner.stopped, **self.record(started),
                "others": self.analysed_by_others()}

    def _reading(self, item_id: str, text: str, kind: str) -> tuple[list[ExtractionTask], int]:
        """The tasks that read a text like an object, over every loaded concept, and the prompt
        tokens they cost (0 offline or when their answers are cached)."""
        ids = sorted(self.concepts)
        if self.prefilter and len(ids) > MAX_OBJECT_CONCEPTS:
            ids = self._candidates({"text": text, "embedding": None}, ids, MAX_OBJECT_CONCEPTS, threshold=None)
        tasks = self._tasks("object", item_id, text, ids, kind=kind, object_id=item_id) if ids else []
        return tasks, sum(count_tokens(t.prompt) for t in tasks
                          if not self.runner.provider.offline and not self.runner.is_cached(t))

    def nearest_concepts(self, text: str, limit: int, floor: float) -> list[str]:
        """The loaded concepts whose descriptions are closest to the text in meaning, at most
        `limit`, closest first, none less close than `floor`."""
        ids = sorted(self.concepts)
        if not ids or limit <= 0:
            return []
        closeness = self._gloss_vectors(ids) @ self.embedder.embed([text])[0]
        return [ids[i] for i in np.argsort(-closeness, kind="stable")[:limit] if closeness[i] >= floor]

    def read_cost(self, item_id: str, text: str, kind: str) -> int:
        """The prompt tokens read_text would spend."""
        return self._reading(item_id, text, kind)[1]

    def read_text(self, item_id: str, text: str, kind: str) -> tuple[dict[str, str], int]:
        """Read a text like an object, over every loaded concept, without storing anything:
        (concept id -> extract, for the concepts it concerns; prompt tokens the calls cost,
        0 when answered from the cache or offline). Answers are cached like every call, so a
        question asked again costs nothing."""
        tasks, spent = self._reading(item_id, text, kind)
        extracts: dict[str, str] = {}
        for task in tasks:
            extracts.update((cid, extract) for cid, extract in self.runner.ask(task).items() if extract)
        return extracts, spent

    def failed_before(self) -> list[dict]:
        """Chunks and objects whose last analysis failed: [{stage, failed, errors (the first few)}]."""
        found: dict[str, dict] = {}
        for r in self.graph.run("analysis/provenance"):
            if r["failed"]:
                entry = found.setdefault(r["stage"], {"stage": r["stage"], "failed": 0, "errors": []})
                entry["failed"] += r["failed"]
                entry["errors"] += [bounded(e) for e in r["errors"] if e]  # stored by older versions unmasked, perhaps
        return list(found.values())

    def analysed_by_others(self) -> list[dict]:
        """Chunks and objects whose extracts came from another provider or model than this
        run's: [{stage, by, items}] (`analyze --redo` redoes them)."""
        return [{"stage": r["stage"], "by": r["by"], "items": r["items"]}
                for r in self.graph.run("analysis/provenance") if r["by"] and r["by"] != self.current]

    def record(self, started: float) -> dict:
        stages = self.runner.accounting.as_dict()
        totals = self.runner.accounting.totals(ANSWER_TOTALS)
        run = {"id": uuid.uuid4().hex, "started_at": datetime.fromtimestamp(started, timezone.utc).isoformat(),
               "provider": self.runner.provider.name, "model": self.runner.provider.model,
               "stages": json.dumps(stages), **totals}
        self.graph.run("analysis/record_run", run=run)
        return {"stages": stages, **totals}


def dry_run_figures(plan: Plan, cached: Callable[[ExtractionTask], bool]) -> dict:
    """Calls and exact prompt tokens (cl100k_base) that the plan would spend, per stage."""
    figures: dict[str, dict] = {}
    for stage, tasks in (("chunk", plan.chunk_tasks), ("object", plan.object_tasks)):
        calls = [t for t in tasks if t.concepts and not cached(t)]
        figures[stage] = {"calls": len(calls), "prompt_tokens": sum(count_tokens(t.prompt) for t in calls),
                          "cached": sum(1 for t in tasks if t.concepts and cached(t))}
    figures["pairs"] = {"naive_calls": plan.pairs_total, "after_prefilter": plan.pairs_candidate}
    return figures
