"""What a search's graph is missing, said with every search over it. The Tripartite prompt of a
question: chunks not analysed for every loaded concept. The triplet graph: chunks not extracted yet
(an interrupted `kg extract`, or documents added since), communities without a report (new,
or withdrawn because their documents changed), and reports without their stored sentences
(written by an older version), entities extracted as concepts of an ontology removed or
changed since, and entity descriptions not yet written again after their chunks changed. The
search still runs on what there is."""
from __future__ import annotations

from tripartite.infra.graph import Graph


def triplet_graph_gaps(graph: Graph, found: dict | None = None) -> str:
    """One line on what is missing, or "" when nothing is; `found` is kg status's row, if read
    already."""
    from tripartite.kg.extract import status

    found = found or status(graph)
    parts = []
    unextracted = found["chunks"] - found["extracted"]
    if unextracted and found["extracted"]:
        parts.append(f"{unextracted:,} of {found['chunks']:,} chunks are not extracted yet")
    if found["unreported"]:
        parts.append(f"{found['unreported']:,} communities have no report")
    line = ("; ".join(parts) + ", so the triplet graph covers only part of the documents: run `tripartite kg extract` "
            "and `tripartite kg communities`") if parts else ""
    if found["stale_concepts"]:
        line += ("; " if line else "") + (
            f"{found['stale_concepts']:,} entities were extracted as concepts of an ontology no longer loaded as it "
            "was: run `tripartite kg extract` (and `kg communities`) to extract them again")
    if found["undescribed"]:
        line += ("; " if line else "") + (
            f"{found['undescribed']:,} entities' descriptions are not written from their chunks as they are now (an "
            "extraction or a removal was interrupted): `tripartite kg extract` writes them")
    if found["without_sentences"]:
        line += ("; " if line else "") + (
            f"{found['without_sentences']:,} reports have no stored sentences (written by an older version), so this "
            "search embeds theirs again: `tripartite kg communities` stores them, with no LLM call")
    return line


def analysis_gap(graph: Graph) -> str:
    """One line on the chunks whose extracts are missing (not analysed for every loaded concept),
    or "" when none are."""
    found = graph.one("analysis/unanalysed")
    if not found or not found["unanalysed"]:
        return ""
    return (f"{found['unanalysed']:,} of {found['chunks']:,} chunks are not analysed for every loaded concept "
            "(documents or concepts added since the last analysis), so their extracts are missing from this "
            "prompt: run `tripartite analyze`")


def distribution_gap(graph: Graph) -> str:
    """One line when the stored score distributions (what a question's candidates are ranked
    against) are behind the graph, or "" when they are current or none is stored."""
    stored = graph.one("selection/freshness", object_id=None)
    if stored["freshness"] in ("fresh", "none"):  # none: no distribution stored, said per concept
        return ""
    return f"the stored score distributions are behind the graph ({stored['hint']})"
