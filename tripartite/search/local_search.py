"""Local search (DB-GPT's): keywords from the question, the entities they name, the relations
around them, the chunks they came from (traced up to Document > Section) and the reports of
their communities, in one prompt within a token budget. The retrieval is one Cypher script,
cypher/search/local.cypher (a Browser procedure too); when no entity matches, the chunks
closest to the question stand in, and the result says so.

The budget goes mostly to the sources: the sections (entities, relations, community reports)
take at most a tenth each, and the sources, ranked by their cosine to the question plus 0.2
times the share of the found entities they mention, fill the rest, a source too long for what is left making
way for a shorter one after it. The question is read by every model that can read it, as in
hybrid search (infra/question_vectors.py): an English question finds Chinese sources too."""
from __future__ import annotations

from tripartite.infra.config import SearchSettings
from tripartite.infra.errors import TripartiteError
from tripartite.infra.graph import Graph
from tripartite.infra.question_vectors import question_vector
from tripartite.infra.quoting import quote
from tripartite.infra.tokens import count_tokens, truncate_to_tokens
from tripartite.search.constants import DEPTH
from tripartite.search.keywords import keywords_task, question_keywords
from tripartite.search.gaps import triplet_graph_gaps
from tripartite.search.layout import SearchPrompt

INTRO = ("Answer the question from the knowledge graph's entities, relations and community reports below and "
         "from the numbered sources; cite the sources you use by their numbers in brackets.")
MAX_TOKENS = SearchSettings.local_tokens  # [search] local_tokens' built-in value
MIN_SUMMARY_TOKENS = 12  # below this a community summary is left out rather than cut to a stub
NOTED_KEYWORDS = 12  # keywords a note names; the rest are counted
ENTITY_LIMIT, RELATION_LIMIT, CHUNK_LIMIT = 10, 40, 12
MENTION_WEIGHT = 0.2  # a source's rank: its cosine to the question + this x the share of found entities it mentions
# Each section's most of the budget: the sources, quoted from the documents, hold what a question
# asks after; the sections say what the graph derived (a fifth each had left 1,000 tokens 2 sources).
ENTITY_SHARE, RELATION_SHARE, COMMUNITY_SHARE = 0.1, 0.1, 0.1


def retrieve(graph: Graph, keywords: list[str], vector: list[float] | None = None, depth: int = DEPTH) -> dict:
    """What cypher/search/local.cypher finds for the keywords (its sources ranked by closeness
    to `vector`, the question's, when given)."""
    return graph.one("search/local", question_keywords=keywords, vector=vector, depth=min(max(depth, 0), 3),
                     entity_limit=ENTITY_LIMIT, relation_limit=RELATION_LIMIT, chunk_limit=CHUNK_LIMIT,
                     mention_weight=MENTION_WEIGHT)


def _fallback_note(graph: Graph, keywords: list[str]) -> str:
    if graph.one("search/entity_count")["entities"] == 0:
        return ("there is no triplet graph yet (build it with `tripartite kg extract`); the chunks closest to the "
                "question stand in")
    named = ", ".join(keywords[:NOTED_KEYWORDS]) or "none"
    if len(keywords) > NOTED_KEYWORDS:  # a long question's keywords, or an object's text's
        named += f" and {len(keywords) - NOTED_KEYWORDS} more"
    return (f"no entity of the knowledge graph matches the question's keywords ({named}); "
            "the chunks closest to the question stand in")


def local_search(graph: Graph, question: str, embedder, max_tokens: int = MAX_TOKENS, depth: int = DEPTH,
                 runner=None, subject: dict | None = None, dry_run: bool = False) -> dict:
    """The local-search prompt for a question (see the module doc) and what stands behind it.
    With a subject ({"object_id", "text"}), the object's text is what is searched for, and the
    prompt shows it under the question. A dry run with an LLM whose keywords are not cached
    estimates: the keywords prompt, and the budget for the final one."""
    if not question.strip():
        raise TripartiteError("the question is empty; ask something")
    query = subject["text"] if subject else question
    if dry_run and runner is not None and not runner.provider.offline and not runner.is_cached(keywords_task(query)):
        spent = count_tokens(keywords_task(query).prompt)
        return {"mode": "local", "question": question, "tokens": max_tokens, "total_tokens": spent + max_tokens,
                "estimate": True, "prompt": "", "references": [], "material": "", "communities": [],
                "entities": [], "keywords": [], "note": ""}
    keywords, spent = question_keywords(graph, query, runner)
    vector = question_vector(embedder, query).tolist()  # read by every model that can read it
    found = retrieve(graph, keywords, vector, depth)
    communities = []
    notes = [triplet_graph_gaps(graph)]
    prompt = SearchPrompt(question, max_tokens, INTRO,
                          subject=f"Object {subject['object_id']}:\n{subject['text']}" if subject else "")
    if found["entities"]:
        # What a coverage judge reads is the descriptions and summaries (from the documents),
        # not the entity names the keywords matched.
        entities, relations, communities = found["entities"], found["relations"], found["communities"]
        prompt.add_section("Entities", [quote(f"- {e['name']} ({e['type']}): {e['description'] or ''}".rstrip(": "))
                                        for e in entities], int(max_tokens * ENTITY_SHARE),
                           [e["description"] or "" for e in entities])
        prompt.add_section("Relations", [quote(f"- {r['source']} {r['type']} {r['target']}: {r['description'] or ''}"
                                               .rstrip(": ")) for r in relations], int(max_tokens * RELATION_SHARE),
                           [r["description"] or "" for r in relations])
        communities = _communities_that_fit(prompt, communities, int(max_tokens * COMMUNITY_SHARE))
        chunks = found["chunks"]
    else:
        notes.insert(0, _fallback_note(graph, keywords))
        chunks = graph.run("search/closest_chunks", vector=vector, limit=CHUNK_LIMIT)
    for chunk in chunks:
        prompt.add_source(chunk)  # one too long to fit leaves room for a shorter one after it
    if chunks and not prompt.sources:  # the prompt asks to cite sources: say why it has none
        notes.insert(0, f"no source fits the budget of {max_tokens:,} tokens beside the rest of the prompt; give a "
                        "larger budget")
    text = prompt.text()
    tokens = count_tokens(text)
    return {"mode": "local", "question": question, "tokens": tokens, "total_tokens": spent + tokens,
            "prompt": text, "references": prompt.references(), "material": prompt.material(),
            "communities": [{"id": c["id"], "level": c["level"], "title": c["title"]} for c in communities],
            "entities": [e["name"] for e in found["entities"]], "keywords": keywords,
            "note": "; ".join(n for n in notes if n)}


def _communities_that_fit(prompt: SearchPrompt, communities: list[dict], share: int) -> list[dict]:
    """The communities' summaries in the prompt, each trimmed to an equal part of `share` tokens
    where the whole does not fit; returns those it holds (no community is listed that the
    prompt does not show)."""
    kept = []
    for i, c in enumerate(communities):
        room = (share - sum(count_tokens(line) + 1 for line in prompt.lines("Communities"))) // (len(communities) - i)
        head = f"- {c['title']}: "
        room = room - count_tokens(head) - 2
        if room < MIN_SUMMARY_TOKENS:  # a few words of a summary say nothing and cost a line
            continue
        summary = quote(truncate_to_tokens(c["summary"] or "", room))
        if summary and prompt.add_section("Communities", [head + summary], share, [summary]):
            kept.append(c)
    return kept
