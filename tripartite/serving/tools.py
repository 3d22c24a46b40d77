"""What the MCP server's tools do, as plain functions over one database connection: the
prompt for an object, search for a question, tracing a chunk, listing objects and ontologies,
finding concepts and walking their hierarchy, reading an object's or a document's text, and
adding an object (analysed and selected for that object alone). Every failure a user can
act on is a TripartiteError with one line; a database that goes away is one too, and the
next call connects again."""
from __future__ import annotations

import hashlib
import threading
from contextlib import contextmanager
from typing import Iterator

from tripartite.infra.config import Settings
from tripartite.infra.errors import Neo4jUnavailable, TripartiteError
from tripartite.search.constants import MODES as OBJECT_MODES
from tripartite.search.constants import QUESTION_MODES

MAX_OBJECT_CHARACTERS = 200_000
DOCUMENT_CHUNKS = 200  # a document read as a resource: its first chunks
RETRY_SECONDS = 2.0  # how long a transaction is retried on transient errors (deadlocks, a lost server)


class KnowledgeTools:
    def __init__(self, settings: Settings, allow_writes: bool = False, offline: bool = False):
        self.settings = settings
        self.allow_writes = allow_writes
        self.offline = offline  # the builders' LLM steps offline even when a model is configured
        self._graph = None
        self._embedder = None
        self._extracts_embedder = None
        self._connecting = threading.Lock()
        self._writing = threading.Lock()  # one object added at a time: analysis and selection are per run

    # ---- shared resources ------------------------------------------------------------------------
    @property
    def graph(self):
        with self._connecting:
            if self._graph is None:
                from tripartite.infra.graph import Graph, open_driver
                from tripartite.infra.migrations import require_current

                # An agent waiting on a tool call is better told in seconds that the database
                # went away than kept 30 s while the driver retries (the CLI's default).
                graph = Graph(open_driver(self.settings, connect_timeout=5.0, retry_time=RETRY_SECONDS),
                              self.settings.neo4j_database)
                try:
                    require_current(graph, self.settings.migrations_dir)
                except BaseException:
                    graph.close()  # the next call connects and checks again
                    raise
                self._graph = graph
            return self._graph

    @property
    def embedder(self):
        with self._connecting:
            if self._embedder is None:
                from tripartite.infra.embeddings import make_embedder

                self._embedder = make_embedder(self.settings)
            return self._embedder

    @property
    def extracts_embedder(self):
        """The local model, the space extracts and concept glosses are compared in (one ONNX session)."""
        with self._connecting:
            if self._extracts_embedder is None:
                from tripartite.infra.embeddings import local_embedder

                self._extracts_embedder = local_embedder(self.settings)
            return self._extracts_embedder

    def close(self) -> None:
        if self._graph is not None:
            self._graph.close()
            self._graph = None

    @contextmanager
    def _database(self) -> Iterator[None]:
        """Turn the driver's errors for a database that went away into one line. The driver
        reconnects by itself once the database is back (and a failed first connection is
        tried again by the next call), so nothing is closed here: other calls may be using it."""
        from neo4j.exceptions import ServiceUnavailable, SessionExpired

        try:
            yield
        except (ServiceUnavailable, SessionExpired, ConnectionError) as exc:
            raise Neo4jUnavailable(f"Neo4j is not reachable at {self.settings.neo4j_uri_shown} "
                                   f"({type(exc).__name__}); check that it runs") from None

    def reading(self):
        """A block of reads whose lost database is one line (as every tool's)."""
        return self._database()

    # ---- read-only tools -----------------------------------------------------------------------
    def object_prompt(self, object_id: str, mode: str = "tripartite", max_tokens: int | None = None):
        """The object's prompt (a PromptResult), built the `mode` way."""
        from tripartite.infra.llm import open_runner
        from tripartite.search.modes import object_prompt, offline_provider

        _check_mode(mode, OBJECT_MODES)
        with self._database():
            if mode == "tripartite":
                from tripartite.selection.settings import effective

                chosen = effective(self.graph, self.settings.selection, max_tokens=max_tokens)
                built = object_prompt(self.graph, object_id, mode, self.embedder, None, chosen.question or None,
                                      chosen.max_tokens, {"selection": chosen.mode,
                                                          "max_per_concept": chosen.max_per_concept,
                                                          "tokens_per_concept": chosen.tokens_per_concept or None})
            else:
                with open_runner(self.settings, offline_provider(mode, None), offline=self.offline) as runner:
                    built = object_prompt(self.graph, object_id, mode, self.embedder, runner, None, max_tokens,
                                          search=self.settings.search)
            if built.question is None:  # every mode asks the object's plugin question (or the default)
                built.question = self.question_of(object_id)
            return built

    def question_of(self, object_id: str) -> str:
        """The question an object's prompts ask: its ontology plugin's, or the default."""
        from tripartite.objects.store import object_text
        from tripartite.ontology.plugins import question_or_default

        found = object_text(self.graph, object_id)
        return question_or_default(None, found["question"] if found else None)  # as rag, local and global ask

    def search(self, question: str, mode: str = "hybrid", max_tokens: int | None = None):
        """A free-text question's prompt (a PromptResult), built the `mode` way."""
        from tripartite.infra.llm import open_runner
        from tripartite.search.modes import check_question, offline_provider, question_analyzer, question_prompt

        _check_mode(mode, QUESTION_MODES)
        check_question(question)
        chosen = self.settings.selection
        extracts = self.extracts_embedder if mode == "tripartite" else None
        with self._database(), open_runner(self.settings, offline_provider(mode, extracts), offline=self.offline) as runner:
            analyzer = question_analyzer(self.graph, extracts, runner) if mode == "tripartite" else None
            return question_prompt(self.graph, question, mode, self.embedder, runner, analyzer, max_tokens,
                                   chosen.alpha, chosen.beta, chosen.mode, search=self.settings.search)

    def trace(self, chunk_id: str) -> dict:
        from tripartite.lexical.store import trace_chunk

        with self._database():
            found = trace_chunk(self.graph, chunk_id)
        if found is None:
            raise TripartiteError(f"no chunk with id {chunk_id!r}; chunk ids come with every prompt's references "
                                  "(chunk_id in the structured result; the prompt's text names the chunk's place)")
        return {"chunk_id": chunk_id, "document": found["document"], "document_id": found["document_id"],
                "source": found["source"], "sections": [s["title"] for s in found["sections"]],
                "index": found["index"], "tokens": found["tokens"], "text": found["text"]}

    def list_objects(self, kind: str | None = None) -> dict:
        from tripartite.objects.store import list_objects

        with self._database():
            rows = list_objects(self.graph, kind)
        return {"objects": [{"id": row["id"], "kind": row["kind"], "title": row["title"], "concepts": row["concepts"],
                             "analysed_by": row["analysed_by"]} for row in rows]}

    def list_ontologies(self) -> dict:
        from tripartite.ontology.store import list_ontologies

        with self._database():
            rows = list_ontologies(self.graph)
        return {"ontologies": [{k: row[k] for k in ("id", "version", "description", "classes", "concepts")}
                               for row in rows]}

    def find_concepts(self, text: str, ontology: str | None = None, limit: int = 10) -> dict:
        from tripartite.serving.concepts import find

        with self._database():
            return find(self.graph, text, ontology, limit)

    def walk_concepts(self, concept: str, direction: str = "narrower", depth: int = 1, limit: int = 50) -> dict:
        from tripartite.serving.concepts import walk

        with self._database():
            return walk(self.graph, concept, direction, depth, limit)

    def object_text(self, object_id: str) -> dict:
        """{text, kind, question} of one object."""
        from tripartite.objects.store import object_text

        with self._database():
            found = object_text(self.graph, object_id)
        if found is None:
            raise TripartiteError(f"no object with id {object_id!r}; see `tripartite objects list`")
        return found

    def list_documents(self) -> list[dict]:
        from tripartite.lexical.store import list_documents

        with self._database():
            return [{k: row[k] for k in ("id", "title", "path", "sections", "chunks")}
                    for row in list_documents(self.graph)]

    def document(self, document_id: str, limit: int = DOCUMENT_CHUNKS) -> dict:
        """A document and its first `limit` chunks in reading order, each with its section path."""
        with self._database():
            found = self.graph.one("lexical/document_chunks", document_id=document_id, limit=limit)
        if found is None:
            raise TripartiteError(f"no document with id {document_id!r}; tripartite://documents lists them")
        return found

    # ---- the one write ---------------------------------------------------------------------------
    def add_object(self, object_id: str, text: str, kind: str = "object") -> dict:
        """Store an object, analyse it (cached calls) and select for it alone."""
        if not self.allow_writes:
            raise TripartiteError("this server is read-only; the operator starts it with `tripartite mcp "
                                  "--allow-writes` to add objects")
        from tripartite.lexical.ids import slugify
        from tripartite.objects.reader import ObjectRecord, object_kind
        from tripartite.objects.store import add_objects, stored_ids

        kind = object_kind(kind)
        text = text.strip()
        if not text:
            raise TripartiteError("the object's text is empty; give the case to analyse")
        if len(text) > MAX_OBJECT_CHARACTERS:
            raise TripartiteError(f"the object's text has {len(text):,} characters; the limit is "
                                  f"{MAX_OBJECT_CHARACTERS:,} (an object is one case, such as one report)")
        wanted = slugify(object_id)
        if not any(ch.isalnum() for ch in object_id):  # slugify names such an id "document"
            raise TripartiteError(f"{object_id!r} is not a usable object id; use letters, digits and '-'")
        record = ObjectRecord(wanted, kind, text.splitlines()[0].lstrip("# ").strip()[:120] or wanted, text,
                              f"mcp:{wanted}", hashlib.sha256(f"{kind}\n{text}".encode()).hexdigest())
        with self._writing, self._database():
            if not self.graph.run("analysis/concepts", ontology=None):
                raise TripartiteError("no ontology is loaded, so there is nothing to analyse an object for; load one "
                                      "with `tripartite ontology load`")
            report = add_objects(self.graph, [record], replace=False)  # never takes over another source's id
            stored = stored_ids(report)[0]
            try:
                calls, analysed_by = self._analyse(stored)
                self._select(stored)
            except TripartiteError as exc:
                raise TripartiteError(f"{exc} (object {stored!r} is stored; adding it again resumes)") from None
        status = next(state for state in ("unchanged", "changed", "moved", "added") if report[state])
        try:
            built = self.object_prompt(stored)
        except TripartiteError as exc:  # stored and analysed, yet no prompt (it concerns no loaded concept)
            raise TripartiteError(f"{exc} (object {stored!r} is stored; the operator can remove it with "
                                  f"`tripartite objects remove {stored}`)") from None
        return {"object_id": stored, "status": status, "llm_calls": calls, "analysed_by": analysed_by,
                "question": built.question,
                "note": (f"the id {wanted!r} belongs to another object, so this one is {stored!r}"
                         if stored != wanted else None),
                "tokens": built.tokens, "concepts": built.concepts or [], "prompt": built.prompt,
                "references": [r.model_dump() for r in built.references]}

    def _analyse(self, object_id: str) -> tuple[int, str]:
        """Analyse one object: (LLM calls made, who read it). The offline extractive reader is
        no LLM: what it answered counts as no call."""
        from tripartite.analysis import open_analyzer
        from tripartite.analysis.analyzer import Plan

        from tripartite.infra.locks import run_lock

        with run_lock(self.graph, "analyze", "analyze", lambda message: None), \
                open_analyzer(self.settings, self.graph) as analyzer:
            plan = analyzer.plan()  # planned under the lock, as `analyze` does: no call paid twice
            mine = Plan([], [t for t in plan.object_tasks if t.item_id == object_id], {},
                        {object_id: plan.skipped_objects.get(object_id, [])})
            outcome = analyzer.run(mine)
            provider = analyzer.runner.provider
        if outcome["errors"]:
            raise TripartiteError(f"the analysis of {object_id!r} failed: {outcome['errors'][0]}")
        if provider.offline:
            return 0, "the offline extractive reader (no LLM)"
        return outcome.get("calls", 0), f"{provider.name}/{provider.model}"

    def _select(self, object_id: str) -> None:
        from tripartite.selection import select
        from tripartite.selection.engine import choose
        from tripartite.selection.settings import effective

        chosen = effective(self.graph, self.settings.selection)
        select(self.graph, chosen.alpha, chosen.beta, [object_id], on_wait=lambda message: None,
               engine=choose(self.graph, self.settings.selection.engine))


def _check_mode(mode: str, allowed: tuple[str, ...]) -> None:
    if mode not in allowed:
        raise TripartiteError(f"mode {mode!r} is unknown here; use one of {', '.join(allowed)}")
