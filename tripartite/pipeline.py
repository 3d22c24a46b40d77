"""The main job end to end, for `tripartite demo` and `tripartite eval`: documents, an
ontology and objects in; a selected graph out (cypher/pipeline/ holds its own guard and reset).

The same steps the individual commands run (migrate, ingest, embed, ontology load, objects
add, analyze, select), strung together. The ontology and the objects are read and checked,
the documents found and the LLM endpoint tried before the first write; a document that fails
to parse is reported by name after the others are stored (each document is written whole or
not at all), and a re-run goes on from there.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

from tripartite.analysis import open_analyzer
from tripartite.infra.locks import run_lock
from tripartite.infra import migrations
from tripartite.infra.config import Settings
from tripartite.infra.embeddings import chunk_embedder
from tripartite.infra.errors import TripartiteError
from tripartite.infra.graph import Graph
from tripartite.kg.communities import describe
from tripartite.lexical.embed import embed_chunks
from tripartite.lexical.ingest import ingest_paths
from tripartite.lexical.readers import SUPPORTED as DOCUMENT_FILES
from tripartite.lexical.readers import discover, refuse_named
from tripartite.lexical.token_counters import make_token_counter
from tripartite.objects.reader import SUPPORTED as OBJECT_FILES
from tripartite.objects.reader import ObjectRecord, object_kind, read_object
from tripartite.objects.store import add_objects, stored_ids
from tripartite.ontology.plugins import Plugin, resolve
from tripartite.ontology.reader import Ontology
from tripartite.ontology.store import load_ontology
from tripartite.selection import select


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
    ontology: Ontology
    plugin: Plugin | None
    documents: tuple            # paths of the documents to ingest
    objects: tuple[ObjectRecord, ...]
    kind: str


def prepare(inputs: Inputs) -> Prepared:
    """Read the ontology and every object and find every document; a bad one is a one-line
    error here, before the graph is touched."""
    ontology, plugin = resolve(inputs.ontology)
    documents = discover(inputs.documents)
    if documents.missing:
        raise InputError(f"{documents.missing[0]}: no such document file or folder; fix the path")
    refuse_named(documents, inputs.documents, "documents are read from Markdown, text or PDF", DOCUMENT_FILES)
    if not documents.supported:
        raise InputError(f"{', '.join(inputs.documents)}: no Markdown, text or PDF documents found")
    found = discover(inputs.objects, kinds=OBJECT_FILES)
    if found.missing:
        raise InputError(f"{found.missing[0]}: no such object file or folder; fix the path")
    refuse_named(found, inputs.objects, "objects are read from Markdown or text", OBJECT_FILES)
    default_kind = plugin.object_kinds[0] if plugin and plugin.object_kinds else "object"
    kind = object_kind(inputs.kind) if inputs.kind is not None else default_kind
    objects = tuple(read_object(path, kind) for path in found.supported)
    if not objects:
        raise InputError(f"{', '.join(inputs.objects)}: no Markdown or text objects found")
    ids = [o.id for o in objects]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise InputError(f"two object files give the id {', '.join(dupes)}; rename one of them")
    return Prepared(ontology, plugin, tuple(documents.supported), objects, kind)


def run_pipeline(settings: Settings, graph: Graph, prepared: Prepared, say: Callable[[str], None],
                 alpha: float, beta: float, offline: bool = False, concurrency: int | None = None,
                 exclusive: str = "") -> PipelineReport:
    """Build the tripartite graph for the prepared inputs and select with alpha and beta.
    offline forces the local embedder and the extractive provider even when an LLM is
    configured; exclusive (the reason, e.g. "would leak into the comparison") refuses a
    database that holds other documents, objects or ontologies. Everything that can be
    checked is checked before the first write."""
    ontology, objects, kind = prepared.ontology, list(prepared.objects), prepared.kind
    report = PipelineReport(ontology=ontology.name)
    if exclusive:
        other = foreign_content(graph, [str(p) for p in prepared.documents], [o.path for o in objects], ontology.name)
        if other:
            raise InputError(f"the database also holds {'; '.join(other)}, which {exclusive}")
    counter = make_token_counter(settings)
    embedder = chunk_embedder(settings, offline)
    documents = [str(path) for path in prepared.documents]
    report.documents = documents

    def step(name: str, message: str, work: Callable[[], object]) -> object:
        say(message)
        started = time.perf_counter()
        result = work()
        report.seconds[name] = round(time.perf_counter() - started, 2)
        return result

    with open_analyzer(settings, graph, offline=offline, concurrency=concurrency, ontology=ontology.name) as analyzer:
        provider = analyzer.runner.provider
        if not provider.offline:
            provider.check_reachable()
        step("migrate", "migrations", lambda: migrations.migrate(graph, settings.migrations_dir))
        ingested = step("ingest", f"ingesting {len(documents)} documents (lexical graph)", lambda: ingest_paths(
            graph, documents, counter, settings.chunking.max_tokens, int(settings.chunking.max_mb * 2**20),
            on_triplets_changed=describe))
        if ingested.failed:
            raise InputError(f"{ingested.failed[0]['path']}: {ingested.failed[0]['error']}")
        report.ingested = len(ingested.ingested)
        report.chunks_written = ingested.chunks_written
        step("embed", f"embedding chunks ({embedder.name})", lambda: embed_chunks(graph, embedder))
        step("ontology", f"loading the ontology {ontology.name}",
             lambda: load_ontology(graph, ontology, prepared.plugin, replace=True))
        added = step("objects", f"adding {len(objects)} objects ({kind})", lambda: add_objects(graph, objects))
        report.objects = sorted(stored_ids(added))
        report.provider, report.model = provider.name, provider.model
        with run_lock(graph, "analyze", "analyze", say):
            plan = analyzer.plan()
            outcome = step("analyze", f"pre-analysis ({provider.name}): {len(plan.chunk_tasks)} chunk and "
                           f"{len(plan.object_tasks)} object calls", lambda: analyzer.run(plan))
        report.analysis_errors = outcome.pop("errors")
        stopped = outcome.pop("stopped")
        if stopped:
            report.analysis_errors.insert(0, f"the run stopped: {stopped}")
        report.analysis = outcome
    selection = step("select", f"selection in Cypher (alpha {alpha}, beta {beta})",
                     lambda: select(graph, alpha, beta, concurrency=settings.selection.concurrency, on_wait=say))
    report.selection = vars(selection)
    return report


def foreign_content(graph: Graph, document_paths: list[str], object_paths: list[str], ontology: str) -> list[str]:
    """What the database holds besides the documents and objects of these files and the ontology."""
    row = graph.run("pipeline/foreign_content", document_paths=document_paths, object_paths=object_paths,
                    ontology=ontology)[0]
    found = []
    for label in ("documents", "objects", "ontologies"):
        ids = sorted(row[label])
        if ids:
            found.append(f"{label} {', '.join(ids[:3])}" + (f" and {len(ids) - 3} more" if len(ids) > 3 else ""))
    return found


def reset_graph(graph: Graph) -> None:
    graph.run("pipeline/reset_graph")
