"""`tripartite kg communities`: hierarchical Leiden communities of the entity graph (Neo4j Graph
Data Science, cypher/kg/leiden.cypher), and one report per community, bottom-up, as Microsoft
GraphRAG writes them (title, summary, rating, findings), each from a bounded input: its members
and relations, most connected and strongest first, cut at REPORT_INPUT_TOKENS. Inputs never
depend on other calls' answers, so the dry run counts exact tokens. Entities whose chunks
described them at length get a summary first (the LLM's, or the descriptions' first sentences).

A community's id hashes its level and members: re-run after new documents, it keeps the report
of every community whose members did not change and reports only the others.
"""
from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from typing import Callable

from tripartite.infra.config import KgSettings
from tripartite.infra.errors import TripartiteError
from tripartite.infra.graph import Graph
from tripartite.infra.llm.runner import TOTALS, LLMRunner
from tripartite.infra.tokens import count_tokens
from tripartite.kg.extractive import extractive_report, extractive_summary
from tripartite.kg.prompts import report_prompt, summary_prompt
from tripartite.lexical.sentences import sentences_of
from tripartite.kg.schema import (REPORT_ANSWER_TOKENS, REPORT_JSON_SCHEMA, REPORT_SCHEMA, REPORT_SHAPE,
                                  SUMMARY_ANSWER_TOKENS, SUMMARY_JSON_SCHEMA, SUMMARY_SCHEMA, SUMMARY_SHAPE, parse_report,
                                  parse_summary)

PROJECTION = "tripartite-entities"
SEED = 42
REPORT_INPUT_TOKENS = 500  # a report's data, at most
SUMMARY_WORDS = 60
DESCRIPTION_CHARS = 1500   # joined chunk descriptions longer than this get summarised


@dataclass(frozen=True)
class ReportTask:
    stage: str
    item_id: str            # the community id
    prompt: str
    members: tuple          # the members the data shows, most connected first
    relations: tuple
    size: int = 0           # all its members

    @property
    def input_hash(self) -> str:
        """What the report was written from, whoever writes it: the prompt, and its members' and
        relations' descriptions whole (the prompt cuts them short; the offline writer reads them
        whole). A report whose input changed is written again; one written by another provider
        from the same input is not (that is `--redo`'s), and a model's call for a description that
        grew only past the cut is answered by the cache."""
        text = self.prompt + "\x1f" + json.dumps([[m.get("description") for m in self.members],
                                                  [r.get("description") for r in self.relations]],
                                                 ensure_ascii=False)
        return hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]

    @property
    def prompt_hash(self) -> str:
        """The input hash earlier versions stored for a model's report (its prompt alone): such a
        report is not written again for the change of hash."""
        return hashlib.sha1(self.prompt.encode("utf-8")).hexdigest()[:16]

    schema = REPORT_SCHEMA
    shape = REPORT_SHAPE
    json_schema = REPORT_JSON_SCHEMA
    answer_tokens = REPORT_ANSWER_TOKENS

    def parse(self, content: str) -> dict:
        return parse_report(content)

    def offline_answer(self) -> dict:
        return extractive_report(list(self.members), list(self.relations), self.size)


@dataclass(frozen=True)
class SummaryTask:
    stage: str
    item_id: str            # the entity key
    prompt: str
    descriptions: tuple

    schema = SUMMARY_SCHEMA
    shape = SUMMARY_SHAPE
    json_schema = SUMMARY_JSON_SCHEMA
    answer_tokens = SUMMARY_ANSWER_TOKENS

    def parse(self, content: str) -> str:
        return parse_summary(content)

    def offline_answer(self) -> str:
        return extractive_summary(list(self.descriptions), SUMMARY_WORDS)


def require_gds(graph: Graph) -> str:
    from neo4j.exceptions import ClientError

    try:
        return graph.one("kg/gds_version")["version"]
    except ClientError:
        raise TripartiteError("community detection needs Neo4j Graph Data Science, and gds.version() is unknown on "
                              "this server: the local server (`tripartite server start`) and docker/compose.yaml have "
                              "it; on your own server install the graph-data-science plugin, on Aura use a "
                              "Professional instance with Graph Analytics") from None


def describe(graph: Graph) -> int:
    """Give entities whose descriptions changed their name and description (the chunks'
    descriptions joined, or, when long, their first sentences until a summary is written), and
    relations whose chunks changed theirs. Returns how many entities."""
    rows = []
    for entity in graph.run("kg/dirty_entities"):
        joined = " ".join(entity["descriptions"])
        long = len(joined) > DESCRIPTION_CHARS
        rows.append({"key": entity["key"], "name": entity["name"], "summarised": False, "needs_summary": long,
                     "description": extractive_summary(entity["descriptions"], SUMMARY_WORDS) if long else joined})
    for start in range(0, len(rows), 2000):
        graph.run("kg/write_descriptions", rows=rows[start:start + 2000])
    graph.run("kg/describe_relations")
    return len(rows)


def detect(graph: Graph, seed: int = SEED, max_levels: int = 10) -> dict:
    """Leiden communities, written to the graph. Returns counts per level, and how many chunks
    are not extracted yet (the communities cover only what is)."""
    require_gds(graph)
    describe(graph)
    size = graph.one("kg/entity_graph_size")
    if not size["relations"]:
        # Communities of a graph that is gone (every document removed) would otherwise stay, and
        # kg status would keep asking for reports this command cannot write.
        graph.run("kg/write_communities", communities=[], memberships=[])
        raise TripartiteError("the triplet graph has no relations between entities yet, so there is nothing to "
                              "group; build it first with `tripartite kg extract`" if not size["entities"] else
                              f"the triplet graph's {size['entities']} entities have no relations between them, so "
                              "there is nothing to group")
    try:
        rows = graph.run("kg/leiden", graph=PROJECTION, seed=seed, max_levels=max_levels)
    finally:
        graph.run("kg/drop_projection", graph=PROJECTION)
    communities, memberships = _communities(rows)
    graph.run("kg/write_communities", communities=communities, memberships=memberships)
    levels: dict[int, int] = {}
    for c in communities:
        levels[c["level"]] = levels.get(c["level"], 0) + 1
    return {"communities": len(communities), "levels": dict(sorted(levels.items())),
            "entities": len(memberships), "unextracted": size["unextracted"], "chunks": size["chunks"]}


def _communities(rows: list[dict]) -> tuple[list[dict], list[dict]]:
    """From each entity's community per level (finest first): communities of two members or
    more, a level that only repeats the one below merged into it; each entity's lowest one."""
    groups: dict[tuple[int, int], list[str]] = {}
    for row in rows:
        for level, community in enumerate(row["levels"] or []):
            groups.setdefault((level, community), []).append(row["key"])
    ids: dict[tuple[int, int], str] = {}
    seen_sets: dict[frozenset, str] = {}
    communities: dict[str, dict] = {}
    for (level, community), members in sorted(groups.items()):
        if len(members) < 2:
            continue
        members_set = frozenset(members)
        if members_set in seen_sets:  # the same members as a lower level: one community
            ids[(level, community)] = seen_sets[members_set]
            continue
        digest = hashlib.sha1("\x1f".join(sorted(members)).encode("utf-8")).hexdigest()[:16]
        cid = f"L{level}-{digest}"
        ids[(level, community)] = seen_sets[members_set] = cid
        communities[cid] = {"id": cid, "level": level, "size": len(members), "parent": None}
    memberships = []
    for row in rows:
        chain = [ids.get((level, community)) for level, community in enumerate(row["levels"] or [])]
        chain = [c for c in dict.fromkeys(chain) if c]  # distinct, lowest first
        if chain:
            memberships.append({"key": row["key"], "community": chain[0]})
        for child, parent in zip(chain, chain[1:]):
            communities[child]["parent"] = parent
    return list(communities.values()), memberships


def report_tasks(graph: Graph, min_size: int = KgSettings.min_size, redo_by: str | None = None,
                 only_provider: str | None = None) -> list[ReportTask]:
    """One task per community of at least `min_size` members whose report is missing or was
    written from other data (its members' descriptions or relations changed), finest level
    first, each from bounded data; with `redo_by`, also those another provider or model
    ('provider/model') wrote (only `only_provider`'s, when given). Which provider runs does not
    change what is due (see ReportTask.input_hash): a model configured after an offline build, or
    `--offline` after a model's, rewrites nothing that `--redo` would not."""
    known = {row["id"]: row for row in graph.run("kg/communities_to_report", min_size=min_size)}
    ids = list(known)
    tasks = []
    for start in range(0, len(ids), 200):
        for row in graph.run("kg/community_data", ids=ids[start:start + 200]):
            data, members, relations = _bounded(row["entities"], row["relations"], row["size"])
            task = ReportTask("report", row["id"], report_prompt(data), tuple(members), tuple(relations), row["size"])
            stored = known[row["id"]]
            by = stored["by"] or ""
            other = redo_by is not None and by != redo_by and (only_provider is None or
                                                               by.split("/")[0] == only_provider)
            changed = stored["input"] not in (task.input_hash, task.prompt_hash)
            if not stored["reported"] or changed or other:
                tasks.append(task)
    return tasks


def _bounded(entities: list[dict], relations: list[dict], size: int) -> tuple[str, list[dict], list[dict]]:
    """The report's data as text, members and relations added (most connected, strongest first)
    while the text stays within REPORT_INPUT_TOKENS."""
    head = f"Entities ({size} in all, the most connected first):"
    lines, members, kept = [head], [], []
    budget = REPORT_INPUT_TOKENS
    used = count_tokens(f"{head}\nRelations:")
    for e in entities:
        line = f"- {e['name']} ({e['type']}): {(e['description'] or '')[:200]}"
        cost = count_tokens(line)
        if used + cost > budget and members:
            break
        lines.append(line)
        members.append(e)
        used += cost
    names = {e["name"] for e in members}
    lines.append("Relations:")
    for r in relations:
        if r["source"] not in names or r["target"] not in names:
            continue
        line = f"- {r['source']} {r['type']} {r['target']}: {(r['description'] or '')[:160]}"
        cost = count_tokens(line)
        if used + cost > budget:
            break
        lines.append(line)
        kept.append(r)
        used += cost
    return "\n".join(lines), members, kept


def summary_tasks(graph: Graph, redo_by: str | None = None, only_provider: str | None = None) -> list[SummaryTask]:
    """Entities whose descriptions are too long to join; with `redo_by`, also summaries another
    provider or model wrote (only `only_provider`'s, when given)."""
    return [SummaryTask("summary", row["key"], summary_prompt(row["name"], row["descriptions"], SUMMARY_WORDS),
                        tuple(row["descriptions"]))
            for row in graph.run("kg/entities_to_summarise", redo_by=redo_by, only_provider=only_provider)]


def dry_run_figures(tasks: list, cached: Callable) -> dict:
    calls = [t for t in tasks if not cached(t)]
    return {"calls": len(calls), "prompt_tokens": sum(count_tokens(t.prompt) for t in calls),
            "cached": len(tasks) - len(calls)}


SENTENCE_SOURCE_COSINE = 0.5  # a report sentence cites member chunks at least this similar (when none quotes it)


def report_sentences(summary: str, findings: list[str]) -> list[str]:
    """The sentences of a report that global search ranks and cites: the summary's, then each
    finding as one."""
    return [s for p in sentences_of(summary) for s in p] + [f for f in findings if f.strip()]


def write_sentences(graph: Graph, embedder, reports: list[dict]) -> None:
    """Reports' sentences with their embeddings and source chunks ({id, summary, findings} each)."""
    rows = [{"community_id": r["id"], "n": n, "text": text}
            for r in reports for n, text in enumerate(report_sentences(r["summary"], r["findings"] or []))]
    if rows:
        for row, vector in zip(rows, embedder.embed([row["text"] for row in rows])):
            row["embedding"] = vector.tolist()
    graph.run("kg/write_report_sentences", community_ids=[r["id"] for r in reports], rows=rows,
              min_cosine=SENTENCE_SOURCE_COSINE)


def report(graph: Graph, runner: LLMRunner, embedder, tasks: list[ReportTask], summaries: list[SummaryTask],
           on_done: Callable[[int], None] = lambda n: None) -> dict:
    """Summaries of long descriptions, then the reports, with their embeddings and sentences;
    reports written before their sentences were kept get them (no LLM call)."""
    started = time.time()
    provider = runner.provider
    by = f"{provider.name}/{provider.model}"
    if not provider.offline and any(not runner.is_cached(t) for t in [*summaries, *tasks]):
        provider.check_reachable()
    errors = []
    rows = []
    for outcome in runner.run(summaries):
        on_done(1)
        if outcome.error:
            errors.append(outcome.error)
        elif not outcome.skipped:
            rows.append({"key": outcome.task.item_id, "description": outcome.result, "summarised": True,
                         "needs_summary": False, "by": by})
    if rows:
        graph.run("kg/write_descriptions", rows=rows)
    written, index_ready, pending = 0, False, []

    def flush() -> None:
        nonlocal index_ready
        if not pending:
            return
        vectors = embedder.embed([row["text"] for row in pending])
        if not index_ready:
            graph.run("kg/community_vector_index", dimensions=int(vectors.shape[1]))
            index_ready = True
        for row, vector in zip(pending, vectors):
            row["embedding"] = vector.tolist()
        graph.run("kg/write_report", rows=list(pending), provider=provider.name, model=provider.model,
                  embedding_model=embedder.name)
        write_sentences(graph, embedder, pending)
        pending.clear()

    for outcome in runner.run(tasks if not runner.stopped else []):
        on_done(1)
        if outcome.skipped:
            continue
        if outcome.error:
            errors.append(outcome.error)
            continue
        answer = outcome.result
        findings = [f"{f['summary']}: {f['explanation']}".rstrip(": ") for f in answer["findings"]]
        text = "\n".join([f"# {answer['title']}", answer["summary"], *[f"- {f}" for f in findings]])
        pending.append({"id": outcome.task.item_id, "title": answer["title"], "summary": answer["summary"],
                        "rating": answer["rating"], "rating_explanation": answer["rating_explanation"],
                        "findings": findings, "text": text, "input": outcome.task.input_hash})
        written += 1
        if len(pending) >= 16:
            flush()
    flush()
    older = graph.run("kg/reports_without_sentences")
    for start in range(0, len(older), 64):
        write_sentences(graph, embedder, older[start:start + 64])
    stages = runner.accounting.as_dict()
    totals = runner.accounting.totals(TOTALS)
    return {"errors": errors, "stopped": runner.stopped, "reports": written, "summaries": len(rows), "stages": stages,
            **totals, "seconds": round(time.time() - started, 2)}
