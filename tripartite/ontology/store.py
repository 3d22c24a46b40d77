"""The ontology part of the graph (cypher/ontology/): writing a validated ontology, listing
what is loaded."""
from __future__ import annotations

from dataclasses import dataclass, field

from tripartite.infra.errors import TripartiteError
from tripartite.infra.graph import Graph
from tripartite.ontology.plugins import Plugin
from tripartite.ontology.reader import Ontology


@dataclass
class Loaded:
    """What a load did: whether it wrote anything; on a reload, the concepts it reworded (their
    ids, and the extracts that wait to be read again), added (no chunk or object read for them
    yet) and removed (with their extracts)."""
    written: bool
    reworded: list[dict] = field(default_factory=list)  # [{id, chunk_extracts, object_extracts}]
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    removed_extracts: int = 0


def load_ontology(graph: Graph, ontology: Ontology, plugin: Plugin | None = None, force: bool = False,
                  replace: bool = False) -> Loaded:
    """Write `ontology` in one transaction (nothing if it was loaded unchanged already), with its
    plugin's question (which prompts for its objects ask) and extraction prompts (which the
    analysis uses, wherever the plugin's folder was). An ontology of the same name loaded from
    another file is replaced only with `replace` (its concepts, and what was analysed for them,
    would go). A concept whose name, description or synonyms changed is read again, in every
    chunk and object, by the next `analyze`."""
    question = plugin.question if plugin else ""
    templates = plugin.templates() if plugin else {}
    prompts = {"chunk_prompt": templates.get("chunk", ""), "object_prompt": templates.get("object", "")}
    state = graph.one("ontology/ontology_state", ontology_id=ontology.name)
    if state and state["checksum"] == ontology.checksum and state["question"] == question and not force \
            and all(state[k] == v for k, v in prompts.items()):
        return Loaded(False)
    if state and state["source"] and state["source"] != ontology.source and not replace:
        analysed = f" (its {state['chunk_extracts']:,} chunk extracts stay only for concepts the new file keeps)" \
            if state["chunk_extracts"] else ""
        raise TripartiteError(f"an ontology named {ontology.name!r} is already loaded from {state['source']}; "
                              f"{ontology.source} has the same name and would replace it{analysed}: give it another "
                              "`name:`, or pass --replace to replace it")
    classes = [{"id": ontology.class_id(c.key), "key": c.key, "name": c.name, "description": c.description}
               for c in ontology.classes]
    # Abbreviations are exact synonyms (the analysis reads text for them too), kept apart by type.
    concepts = [{"id": ontology.concept_id(c.key), "key": c.key, "name": c.name,
                 "class_id": ontology.class_id(c.class_key),
                 "synonyms": list(dict.fromkeys([*c.synonyms, *c.abbreviations])), "abbreviations": list(c.abbreviations),
                 "description": c.description, "broader": [ontology.concept_id(b) for b in c.broader],
                 "related": list(c.related), "source": c.source, "xrefs": list(c.xrefs), "notation": c.notation}
                for c in ontology.concepts]
    meta = {"id": ontology.name, "version": ontology.version, "description": ontology.description,
            "source": ontology.source, "checksum": ontology.checksum, "question": question, **prompts}

    def write(tx) -> Loaded:
        reworded = tx.run("ontology/reworded_concepts", concepts=concepts)
        changes = tx.run("ontology/added_and_removed_concepts", ontology_id=ontology.name,
                         concept_ids=[c["id"] for c in concepts])[0]
        tx.run("ontology/write_ontology", ontology=meta, classes=classes, concepts=concepts,
               reworded=[r["id"] for r in reworded])
        tx.run("selection/inputs_changed", what="ontology")
        if not state:  # a first load: every concept is new, which is no news
            return Loaded(True, reworded)
        return Loaded(True, reworded, changes["added"], changes["removed"], changes["removed_extracts"])
    loaded = graph.write_transaction(write)
    # A triplet graph joins the new concepts now, in batches of its own: in the load's transaction
    # a large ontology beside a large triplet graph outgrew the server's transaction memory.
    graph.run("kg/link_concepts")
    return loaded


def list_ontologies(graph: Graph) -> list[dict]:
    return graph.run("ontology/list_ontologies")


def find_concepts(graph: Graph, text: str, ontology: str | None = None, limit: int = 10) -> list[dict]:
    """Concepts named by a code (id, source term, notation, cross-reference), a name or a synonym,
    best matches first."""
    return graph.run("ontology/find_concepts", text=text, ontology=ontology, limit=limit)


def remove_ontology(graph: Graph, name: str, on_wait=lambda message: None) -> dict | None:
    """Remove a loaded ontology and what was derived from it, in one transaction, while no
    analysis or selection runs (either could write back what is being removed); what it
    removed, or None when it was not loaded."""
    from tripartite.infra.locks import run_lock

    def work(tx) -> dict | None:
        footprint = tx.run("ontology/ontology_footprint", ontology_id=name)
        if not footprint:
            return None
        tx.run("ontology/remove_ontology", ontology_id=name)
        tx.run("selection/inputs_changed", what="ontology removed")
        return footprint[0]
    with run_lock(graph, "analyze", "analyze or ontology remove", on_wait), \
            run_lock(graph, "select", "select or ontology remove", on_wait):
        return graph.write_transaction(work, retry=False)  # too large a graph fails the same way twice
