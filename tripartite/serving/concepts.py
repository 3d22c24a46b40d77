"""What the ontology holds, for an agent: concepts found by a code, a name or a synonym
(ontology/store.py's find_concepts, as `tripartite ontology find` finds them), and the
hierarchy walked from one concept, broader or narrower, a BROADER step at a time
(cypher/ontology/concept_neighbours.cypher)."""
from __future__ import annotations

from tripartite.infra.errors import TripartiteError
from tripartite.infra.graph import Graph

DIRECTIONS = ("broader", "narrower", "both")
LISTED_NEIGHBOURS = 25  # a concept found lists at most this many narrower ones (walk_concepts gives them all)


def _named(pairs: list[str]) -> list[dict]:
    """find_concepts' neighbours, "id name" each, as {id, name}."""
    named = []
    for pair in pairs:
        concept_id, _, name = pair.partition(" ")
        named.append({"id": concept_id, "name": name})
    return named


def find(graph: Graph, text: str, ontology: str | None = None, limit: int = 10) -> dict:
    from tripartite.ontology.store import find_concepts

    if not text.strip():
        raise TripartiteError("give a code, a name or a synonym to look for")
    found = []
    for row in find_concepts(graph, text.strip(), ontology=ontology, limit=limit):
        narrower = _named(row["narrower"])
        found.append({"id": row["id"], "name": row["name"], "ontology": row["ontology"], "concept_class": row["class"],
                      "matched": row["matched"], "source": row["source"] or None, "notation": row["notation"] or None,
                      "xrefs": row["xrefs"], "synonyms": row["synonyms"], "broader": _named(row["broader"]),
                      "narrower": narrower[:LISTED_NEIGHBOURS], "narrower_count": len(narrower)})
    return {"text": text, "concepts": found}


def resolve(graph: Graph, concept: str) -> dict:
    """The concept `concept` names whole: its id, a code (source term, notation,
    cross-reference), its name or a synonym (the best match, when two concepts share it)."""
    from tripartite.ontology.store import find_concepts

    wanted = concept.strip().lower()
    for row in find_concepts(graph, concept.strip(), limit=5) if wanted else []:
        exact_code = row["matched"].startswith(("code ", "cross-reference "))
        exact_label = row["name"].lower() == wanted or row["matched"].lower() == f'synonym "{wanted}"'
        if exact_code or exact_label or row["id"].lower() == wanted:
            return row
    raise TripartiteError(f"no concept has the id, code, name or synonym {concept!r}; find_concepts looks "
                          "concepts up by a part of their name or a synonym and gives their ids")


def walk(graph: Graph, concept: str, direction: str = "narrower", depth: int = 1, limit: int = 50) -> dict:
    """The concepts up to `depth` BROADER steps above and/or below one concept, nearest first,
    at most `limit` of them; `truncated` says when there were more."""
    if direction not in DIRECTIONS:
        raise TripartiteError(f"direction {direction!r} is unknown; use one of {', '.join(DIRECTIONS)}")
    start = resolve(graph, concept)
    reached: list[dict] = []
    truncated = False
    for way in ("broader", "narrower") if direction == "both" else (direction,):
        seen, frontier = {start["id"]}, [start["id"]]
        for steps in range(1, depth + 1):
            room = limit - len(reached)
            if not frontier or room <= 0:
                truncated = truncated or bool(frontier)
                break
            rows = [r for r in graph.run("ontology/concept_neighbours", concept_ids=frontier, direction=way,
                                         limit=room + len(seen) + 1) if r["id"] not in seen]
            truncated = truncated or len(rows) > room
            rows = rows[:room]
            reached += [{**row, "concept_class": row["class"], "direction": way, "steps": steps} for row in rows]
            seen.update(row["id"] for row in rows)
            frontier = [row["id"] for row in rows]
    return {"concept": {"id": start["id"], "name": start["name"], "ontology": start["ontology"],
                        "concept_class": start["class"]},
            "direction": direction, "depth": depth, "concepts": reached, "truncated": truncated}
