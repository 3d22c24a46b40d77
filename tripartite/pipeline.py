"""The main job end to end: documents, ontology and objects in; a selected graph out.

The same steps the individual commands run (migrate, ingest, embed, ontology load, objects
add, analyze, select), strung together for `tripartite demo` and `tripartite eval`. The
ontology and the objects are read and checked, the documents found and the LLM endpoint
tried before the first write; a document that fails to parse is reported by name after the
others are stored (each document is written whole or not at all), and a re-run goes on
from there.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import neo4j

from tripartite import migrations, scripts
from tripartite.config import Settings
from tripartite.errors import TripartiteError


class InputError(TripartiteError):
    """A pipeline input (document, ontology, object) is missing or unreadable."""


@dataclass(frozen=True)
class Inputs:
    documents: tuple[str, ...]   # files and folders
    ontology: str                # a plugin name, a plugin folder or an ontology file
    objects: tuple[str, ...]     # files and folders; one file is one object
    kind: str | None = None      # the objects' kind (default: the plugin's first, else "object")


@dataclass
class PipelineReport:
    ontology: str = ""
    documents: list[str] = field(default_factory=list)
    objects: list[str] = field(default_factory=list)
    ingested: int = 0          # documents new or changed in this run
    chunks_written: int = 0
    provider: str = ""
    model: str = ""
    analysis: dict = field(default_factory=dict)
    analysis_errors: list[str] = field(default_factory=list)
    selection: dict = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Prepared:
    """The inputs read and checked, before anything is written."""
    ontology: object            # tripartite.ontology.Ontology
    documents: tuple            # paths of the documents to ingest
    document_ids: list[str]
    objects: tuple              # tripartite.objects.ObjectRecord
    kind: str

    @property
    def object_ids(self) -> list[str]:
        return sorted(o.id for o in self.objects)


def prepare(inputs: Inputs) -> Prepared:
    """Read the ontology and every object and find every document; a bad one is a one-line
    error here, before the graph is touched."""
    from tripartite.lexical.readers import discover, document_ids
    from tripartite.objects import read_object
    from tripartite.ontology import resolve

    ontology, plugin = resolve(inputs.ontology)
    documents = discover(inputs.documents)
    if documents.missing:
        raise InputError(f"{documents.missing[0]}: no such document file or folder; fix the path")
    if not documents.supported:
        raise InputError(f"{', '.join(inputs.documents)}: no Markdown, text or PDF documents found")
    found = discover(inputs.objects)
    if found.missing:
        raise InputError(f"{found.missing[0]}: no such object file or folder; fix the path")
    kind = inputs.kind or (plugin.object_kinds[0] if plugin and plugin.object_kinds else "object")
    objects = tuple(read_object(path, kind) for path in found.supported)
    if not objects:
        raise InputError(f"{', '.join(inputs.objects)}: no Markdown or text objects found")
    ids = [o.id for o in objects]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise InputError(f"two object files give the id {', '.join(dupes)}; rename one of them")
    return Prepared(ontology, tuple(documents.supported), sorted(document_ids(documents.supported).values()),
                    objects, kind)


def run_pipeline(settings: Settings, driver: neo4j.Driver, prepared: Prepared, say: Callable[[str], None],
                 alpha: float, beta: float, offline: bool = False, concurrency: int = 4,
                 exclusive: bool = False) -> PipelineReport:
    """Build the tripartite graph for the prepared inputs and select with alpha and beta.
    offline forces the local embedder and the extractive provider even when an LLM is
    configured; exclusive refuses a database that holds other documents, objects or
    ontologies. Everything that can be checked is checked before the first write."""
    from tripartite.analysis import Analyzer
    from tripartite.embeddings import MiniLMEmbedder, make_token_counter
    from tripartite.lexical.embed import embed_chunks
    from tripartite.lexical.ingest import ingest_paths
    from tripartite.llm.cache import AnswerCache
    from tripartite.llm.providers import make_provider
    from tripartite.llm.runner import LLMRunner
    from tripartite.objects import add_objects
    from tripartite.ontology_store import load_ontology
    from tripartite.selection import select

    db = settings.neo4j_database
    ontology, objects, kind = prepared.ontology, list(prepared.objects), prepared.kind
    report = PipelineReport(ontology=ontology.name, documents=prepared.document_ids, objects=prepared.object_ids)
    if exclusive:
        other = foreign_content(driver, db, report.documents, report.objects, ontology.name)
        if other:
            raise InputError(f"the database also holds {'; '.join(other)}, which would leak into the comparison; "
                             "use an empty database (or pass --reset to empty this one)")
    counter = make_token_counter(settings)
    analysis_embedder = MiniLMEmbedder(settings.cache_dir)  # extracts are compared in its space
    chunk_embedder = make_chunk_embedder(settings, offline)
    provider = make_provider(settings, analysis_embedder, offline=offline)
    if not provider.offline:
        provider.check_reachable(settings.llm.base_url or "api.openai.com")
    documents = [str(path) for path in prepared.documents]

    def step(name: str, message: str, work: Callable[[], object]) -> object:
        say(message)
        started = time.perf_counter()
        result = work()
        report.seconds[name] = round(time.perf_counter() - started, 2)
        return result

    step("migrate", "migrations", lambda: migrations.migrate(driver, db, settings.migrations_dir))
    ingested = step("ingest", f"ingesting {len(documents)} documents (lexical graph)", lambda: ingest_paths(
        driver, db, documents, counter, settings.chunking.max_tokens, int(settings.chunking.max_mb * 2**20)))
    if ingested.failed:
        raise InputError(f"{ingested.failed[0]['path']}: {ingested.failed[0]['error']}")
    report.ingested = len(ingested.ingested)
    report.chunks_written = ingested.chunks_written
    step("embed", f"embedding chunks ({chunk_embedder.name})", lambda: embed_chunks(driver, db, chunk_embedder))
    step("ontology", f"loading the ontology {ontology.name}", lambda: load_ontology(driver, db, ontology))
    step("objects", f"adding {len(objects)} objects ({kind})", lambda: add_objects(driver, db, objects))

    report.provider, report.model = provider.name, provider.model
    cache = AnswerCache(settings.llm_cache)
    try:
        runner = LLMRunner(provider, cache, concurrency=concurrency, backoff_seconds=settings.llm.backoff)
        analyzer = Analyzer(driver, db, analysis_embedder, runner, ontology=ontology.name)
        plan = analyzer.plan()
        started = time.time()
        report.analysis_errors = step(
            "analyze", f"pre-analysis ({provider.name}): {len(plan.chunk_tasks)} chunk and "
            f"{len(plan.object_tasks)} object calls", lambda: analyzer.execute(plan))
        report.analysis = analyzer.record(started)
    finally:
        cache.close()
    selection = step("select", f"selection in Cypher (alpha {alpha}, beta {beta})",
                     lambda: select(driver, db, alpha, beta))
    report.selection = vars(selection)
    return report


def make_chunk_embedder(settings: Settings, offline: bool):
    """The chunks' embedder: the configured one, or the local model when offline."""
    from tripartite.embeddings import MiniLMEmbedder, make_embedder

    return MiniLMEmbedder(settings.cache_dir) if offline else make_embedder(settings)


def foreign_content(driver: neo4j.Driver, database: str, document_ids: list[str], object_ids: list[str],
                    ontology: str) -> list[str]:
    """What the database holds besides the given documents, objects and ontology."""
    row = scripts.query(driver, database, "pipeline/foreign_content", document_ids=document_ids,
                        object_ids=object_ids, ontology=ontology)[0]
    found = []
    for label in ("documents", "objects", "ontologies"):
        ids = sorted(row[label])
        if ids:
            found.append(f"{label} {', '.join(ids[:3])}" + (f" and {len(ids) - 3} more" if len(ids) > 3 else ""))
    return found


def reset_graph(driver: neo4j.Driver, database: str) -> None:
    scripts.run_autocommit(driver, database, "pipeline/reset_graph")
