"""Ontology files: `ontology import` (a branch of a published OBO, OWL, SKOS or CSV file) and
`ontology draft` (proposals from the ingested documents), each writing a plugin folder to curate.
Imports of the pipeline stay inside the commands, so --help stays fast."""
from __future__ import annotations

from pathlib import Path

import click

from tripartite.infra.errors import TripartiteError
from tripartite.cli.common import App, FiniteFloatRange, output, pass_app
from tripartite.ontology.constants import MAX_MB


def max_mb_option(command):
    """--max-mb and --strict for the commands that read an ontology file (import, and draft's --seed)."""
    command = click.option("--strict", is_flag=True,
                           help="Refuse an OBO file at its first malformed line (by default such lines are skipped "
                                "and every one is listed).")(command)
    return click.option("--max-mb", type=FiniteFloatRange(min=0, min_open=True), default=MAX_MB, show_default=True,
                        help="Refuse ontology files larger than this many MB (reading one takes several times "
                             "its size in memory).")(command)


def _import_lines(s: dict) -> list[str]:
    lines = [f"reported  {line}" for line in s["problems"]]
    lines.append(f"imported {s['name']}: {s['classes']} classes, {s['concepts']} concepts under {s['root']} "
                 f"({s['terms_read']} terms read, {s['obsolete_skipped']} of them obsolete, "
                 f"{len(s['problems'])} problems reported) -> {s['folder']}")
    if s.get("loaded") is not None:
        lines.append(f"{'loaded' if s['loaded'] else 'unchanged'} {s['name']}")
    else:
        lines.append(f"curate {s['folder']}/ontology.yaml, then `tripartite ontology load {s['folder']}`")
    return lines


@click.command("import")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--root", required=True, help="The term whose branch to take: an id as the file writes it "
                                            "(DOID:1287), an IRI, or a unique name.")
@click.option("--name", required=True, help="The new ontology's name (its concepts' id prefix).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("."), show_default=True,
              help="Where the plugin folder NAME/ is written.")
@click.option("--depth", type=click.IntRange(min=1), default=None,
              help="Take terms at most this many is_a steps below the root (default: all).")
@click.option("--class-level", type=click.IntRange(min=1), default=1, show_default=True,
              help="Terms this many steps below the root name the concept classes; 1: the root's children.")
@click.option("--classes", "class_terms", default=None,
              help="Comma-separated terms that name the concept classes instead (ids as the file writes them).")
@click.option("--language", default="en", show_default=True,
              help="Label languages for OWL and SKOS files, comma-separated: the first with a label names a "
                   "concept, the others' labels become its synonyms (en,de).")
@click.option("--load", "load_now", is_flag=True, help="Load the written plugin into the database.")
@click.option("--force", is_flag=True, help="Replace an existing folder NAME/ under --out (with --load, also an "
                                             "ontology of that name loaded from another file).")
@max_mb_option
@output(_import_lines)
@pass_app
def ontology_import(app: App, file: Path, root: str, name: str, out: Path, depth: int | None, class_level: int,
                    class_terms: str | None, language: str, load_now: bool, force: bool, max_mb: float,
                    strict: bool) -> dict:
    """Import the branch under --root of an OBO, OWL, SKOS or CSV file as a plugin folder to curate.

    Every term under the root becomes a concept (the root's children included) with a BROADER
    edge for each is_a; concept classes group them: the root's children (or the level
    --class-level gives, or the terms --classes names), each concept in the class of its nearest
    class term. Exact and related synonyms are kept apart, abbreviations and cross-references
    (xrefs) kept; what is skipped (obsolete terms, malformed OBO lines, comments not taken as
    definitions) and what is repaired (cycles, missing parents, duplicate names) is reported one
    line each. Nothing is written unless the branch reads and leaves concepts."""
    from tripartite.ontology.branch import labelled
    from tripartite.ontology.importer import import_branch

    if load_now:  # connecting first: an unreachable database or a taken name fails before any write
        state = app.graph.one("ontology/ontology_state", ontology_id=name)
        target = (out / name / "ontology.yaml").resolve()
        if not force and state and state["source"] and state["source"] != str(target):
            raise TripartiteError(f"an ontology named {name!r} is already loaded from {state['source']}; give the "
                                  f"import another --name, or pass --force to write {target.parent} and replace it")
    chosen = [t.strip() for t in class_terms.split(",") if t.strip()] if class_terms else None
    result = import_branch(file, root, name, out, depth=depth, class_level=class_level, language=language,
                           force=force, max_mb=max_mb, classes=chosen, strict=strict)
    branch = result.branch
    summary = {"name": name, "root": labelled(branch.root), "folder": str(result.folder),
               "classes": len(branch.classes), "concepts": branch.concept_count, "terms_read": result.terms_read,
               "obsolete_skipped": branch.obsolete, "problems": branch.problems, "loaded": None}
    if load_now:
        from tripartite.ontology.plugins import resolve
        from tripartite.ontology.store import load_ontology

        parsed, plugin = resolve(str(result.folder))
        summary["loaded"] = load_ontology(app.graph, parsed, plugin, force=force, replace=force).written
    return summary


def _draft_lines(s: dict) -> list[str]:
    lines = [f"reported  {line}" for line in s.get("problems", [])]
    lines += [f"drafted {s['name']} ({s['how']}): {s['classes']} classes, {s['concepts']} concepts from "
              f"{s['chunks']} chunks -> {s['folder']}"]
    if s.get("seed_unseen"):
        lines.append(f"left out {s['seed_unseen']} seed concepts the documents never name")
    if s.get("prompt_tokens"):
        lines.append(f"{s['prompt_tokens']} prompt tokens spent")
    lines.append(f"curate {s['folder']}/ontology.yaml (each concept says where it was seen), "
                 f"then `tripartite ontology load {s['folder']}`")
    return lines


@click.command("draft")
@click.option("--name", required=True, help="The new ontology's name.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("."), show_default=True,
              help="Where the plugin folder NAME/ is written.")
@click.option("--concepts", "max_concepts", type=click.IntRange(min=2, max=500), default=40, show_default=True,
              help="At most this many concepts (new ones, with --seed).")
@click.option("--classes", "max_classes", type=click.IntRange(min=1, max=50), default=None,
              help="Offline: this many classes (default: about the square root of the concepts).")
@click.option("--seed", type=click.Path(path_type=Path), default=None,
              help="Start from a published ontology's branch (OBO, OWL, SKOS, CSV; with --root); offline.")
@click.option("--root", default=None, help="With --seed: the term whose branch to start from.")
@click.option("--sample", "sample_size", type=click.IntRange(min=1), default=36, show_default=True,
              help="With an LLM: how many chunks it reads (spread over the documents).")
@click.option("--offline", is_flag=True, help="Key phrases and embeddings even when an LLM is configured.")
@click.option("--force", is_flag=True, help="Replace an existing folder NAME/ under --out.")
@max_mb_option
@output(_draft_lines)
@pass_app
def ontology_draft(app: App, name: str, out: Path, max_concepts: int, max_classes: int | None, seed: Path | None,
                   root: str | None, sample_size: int, offline: bool, force: bool, max_mb: float,
                   strict: bool) -> dict:
    """Propose concept classes and concepts with synonyms from the ingested documents, to curate.

    Offline (no LLM configured, or --offline): key phrases by frequency and spread over the
    documents, synonyms and classes by embedding similarity. With an LLM: proposals from sampled
    chunks. With --seed FILE --root ID: the seed branch's concepts that the documents name, plus
    new ones in the closest seed class (offline, whether or not an LLM is configured), with the
    seed's problems reported as `import` reports them. Each concept says where it was seen."""
    from tripartite.infra.embeddings import make_embedder
    from tripartite.ontology.plugin_folder import check_name, ontology_file, plugin_manifest, write_plugin_folder

    check_name(name)
    if (seed is None) != (root is None):
        raise click.UsageError("--seed and --root go together: the file and the term whose branch to start from")
    branch = None
    if seed is not None:  # read and checked before the graph and the model are touched
        from tripartite.ontology.branch import take_branch
        from tripartite.ontology.sources import read_terms

        branch = take_branch(read_terms(seed, max_mb=max_mb, strict=strict), root, str(seed))
    chunks = app.graph.run("ontology/draft_chunks")
    if not chunks:
        raise TripartiteError("no documents ingested; run `tripartite ingest PATH` first, then draft from them")
    embedder = make_embedder(app.settings)
    summary = {"name": name, "chunks": len(chunks), "prompt_tokens": 0, "seed_unseen": 0}
    if branch is not None:
        from tripartite.drafting.offline import seeded_classes

        summary["problems"] = branch.problems  # cycles, missing parents, duplicate names: as import says them
        classes, summary["seed_unseen"] = seeded_classes(chunks, embedder.embed, branch.classes, max_concepts)
        how = f"seeded from {seed.name} under {branch.root.id}"
    elif offline or not app.settings.llm.configured:
        from tripartite.drafting.offline import offline_classes

        classes, how = offline_classes(chunks, embedder.embed, max_concepts, max_classes), "offline key phrases"
    else:
        from tripartite.infra.llm import open_runner
        from tripartite.drafting.llm import llm_classes

        with open_runner(app.settings) as runner:
            classes, summary["prompt_tokens"] = llm_classes(chunks, runner, name, max_concepts, sample_size)
            how = f"{runner.provider.name}/{runner.provider.model} on {min(sample_size, len(chunks))} sampled chunks"
    if not classes:
        raise TripartiteError(f"found nothing to propose in {len(chunks)} chunks; ingest more text or lower --concepts")
    description = f"Drafted from {len(chunks)} chunks ({how}); curate before use."
    header = (f"Drafted by `tripartite ontology draft` ({how}).\nEvery concept's `seen:` says where the documents "
              f"use it; the loader ignores it.\nCurate: name the classes, merge or drop concepts, add synonyms; "
              f"then `tripartite ontology load <this folder>`.")
    folder = write_plugin_folder(out, name, {"plugin.yaml": plugin_manifest(name, description),
                                             "ontology.yaml": ontology_file(header, name, description, classes)},
                                 force=force)
    return {**summary, "how": how, "folder": str(folder), "classes": len(classes),
            "concepts": sum(len(k["concepts"]) for k in classes)}
