"""Global search, a map-reduce over community reports (Microsoft GraphRAG's, on DB-GPT's
communities): the reports of one level are ranked by the similarity of their embedding to the
question and only the most relevant are mapped; each batch of reports gives scored points (one
LLM call each, concurrent and cached; offline, the reports' stored sentences ranked by their
stored embeddings' similarity to the question, so a query embeds nothing but itself); the final
prompt holds the best points within the budget, each citing the chunks its text came from."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tripartite.infra.config import SearchSettings
from tripartite.infra.errors import TripartiteError
from tripartite.infra.graph import Graph
from tripartite.infra.llm.schemas import array, budget, number, obj, string
from tripartite.infra.llm.tasks import InvalidAnswer, load_json
from tripartite.infra.question_vectors import question_vector
from tripartite.infra.quoting import quote
from tripartite.infra.tokens import count_tokens, truncate_to_tokens
from tripartite.search.constants import MAP_TOKENS, MIN_COMMUNITIES
from tripartite.search.gaps import triplet_graph_gaps
from tripartite.search.layout import SearchPrompt

MAP_SCHEMA = "map-points-v1"
MAP_SHAPE = '{"points": [{"description": "...", "score": 0-100, "reports": [1]}]}'
MAP = """Answer the question from the community reports below: give the points that help answer it, each \
with a score from 0 to 100 for how much it helps (0: not at all) and the numbers of the reports it comes from.
Question: {question}
Reports:
{reports}
Answer with JSON only: {shape}"""
INTRO = ("Answer the question from the points below, which the knowledge graph's community reports give on it "
         "(in brackets, how much each helps, out of 100); cite the references you use by their numbers in brackets.")
MAX_TOKENS = SearchSettings.global_tokens  # the final prompt, by default ([search] global_tokens)
CHUNKS_PER_COMMUNITY = 3  # the chunks named behind each community's points
MAP_LIMIT = 8            # communities mapped at most, the most relevant first
MAP_BATCH_TOKENS = 1500  # reports per map call, at most
REPORT_TOKENS = 900      # a longer report is cut for the map step
POINTS_PER_BATCH = 5     # offline: sentences taken per batch
POINTS_PER_CALL = 10     # a map answer's points, at most
POINT_CHARS = 400        # a point's length, at most
SOURCES_PER_POINT = 2    # a model's point cites the chunks of the report sentences closest to it, this many


@dataclass(frozen=True)
class MapTask:
    stage: str
    item_id: str
    prompt: str
    query: str              # what the offline map step ranked sentences against
    reports: tuple          # (number, community id, report text)
    sentences: tuple = ()   # (report number, text, cosine to the query, chunk ids): the offline map step's input

    schema = MAP_SCHEMA
    shape = MAP_SHAPE
    answer_tokens = budget(POINTS_PER_CALL * (POINT_CHARS // 2 + 16) + 16)

    @property
    def json_schema(self) -> dict:
        numbers = {"type": "integer", "enum": [n for n, _, _ in self.reports]}
        point = obj(description=string(POINT_CHARS), score=number(0, 100), reports=array(numbers, len(self.reports)))
        return obj(points=array(point, POINTS_PER_CALL))

    def parse(self, content: str) -> list[dict]:
        data = load_json(content)
        if not isinstance(data, dict) or not isinstance(data.get("points"), list):
            raise InvalidAnswer('the answer must be an object with a "points" list')
        numbers = {n for n, _, _ in self.reports}
        points = []
        for item in data["points"]:
            if not isinstance(item, dict) or not isinstance(item.get("description"), str):
                raise InvalidAnswer('each point must be an object with a "description"')
            score = item.get("score", 0)
            if not isinstance(score, (int, float)) or isinstance(score, bool) or not 0 <= score <= 100:
                raise InvalidAnswer('"score" must be a number from 0 to 100')
            reports = [n for n in item.get("reports") or [] if n in numbers]
            points.append({"description": item["description"].strip(), "score": float(score), "reports": reports})
        return points


class PointRanker:
    """Offline map answers: the reports' sentences, ranked by the similarity of their stored
    embeddings to the question (computed in cypher/search/ranked_communities.cypher), each
    with the chunks it came from."""

    offline = True
    name = "extractive"
    model = "map-extractive-v1"

    def answer(self, task: MapTask):
        from tripartite.infra.llm.providers import Usage

        ranked = sorted(task.sentences, key=lambda s: (-s[2], s[0], s[1]))[:POINTS_PER_BATCH]
        return [{"description": text.lstrip("- "), "score": round(100 * max(0.0, cosine), 1), "reports": [n],
                 "chunks": list(chunks)} for n, text, cosine, chunks in ranked], Usage()


def choose_level(levels: list[dict]) -> int:
    """The level whose reports cover the most entities, among those with at least
    MIN_COMMUNITIES reports when there are any; the coarsest of equals. Coarse levels read well
    for whole-corpus questions, but Leiden leaves many entities out of them; the ranking by
    similarity then picks the reports worth mapping."""
    able = [row for row in levels if row["communities"] >= MIN_COMMUNITIES] or levels
    return max(able, key=lambda row: (row["members"], row["level"]))["level"]


def _map_task(question: str, query: str, batch: list[tuple], sentences: dict[str, list] | None = None) -> MapTask:
    reports = "\n\n".join(f"[{n}] {quote(text)}" for n, _, text in batch)
    known = sentences or {}
    return MapTask("map", "batch " + ",".join(str(n) for n, _, _ in batch),
                   MAP.format(question=quote(question), shape=MAP_SHAPE, reports=reports), query, tuple(batch),
                   tuple((n, x["text"], x["cosine"], tuple(x["chunks"] or ())) for n, cid, _ in batch
                         for x in known.get(cid, [])))


def map_tasks(question: str, communities: list[dict], map_tokens: int = MAP_TOKENS,
              query: str | None = None) -> list[MapTask]:
    """Batches of the ranked reports (each cut to REPORT_TOKENS), numbered [1], [2]... across
    batches, the most relevant first, while all map prompts together stay within `map_tokens`.
    `query` (default: the question) is what the reports were ranked against."""
    query = question if query is None else query
    sentences = {c["id"]: c.get("sentences") or [] for c in communities}
    done: list[MapTask] = []
    batch: list[tuple] = []
    for n, c in enumerate(communities, start=1):
        text = truncate_to_tokens(c["report"] or f"# {c['title']}\n{c['summary']}", REPORT_TOKENS)
        grown = _map_task(question, query, batch + [(n, c["id"], text)])
        if batch and count_tokens(grown.prompt) > MAP_BATCH_TOKENS:  # close the batch, open another
            done.append(_map_task(question, query, batch, sentences))
            batch, grown = [], _map_task(question, query, [(n, c["id"], text)])
        if sum(count_tokens(t.prompt) for t in done) + count_tokens(grown.prompt) > map_tokens:
            break
        batch.append((n, c["id"], text))
    if batch:
        done.append(_map_task(question, query, batch, sentences))
    return done


def _sentences_now(embedder, query_vector, ranked: list[dict]) -> None:
    """Reports written before their sentences were stored (an older version): the offline map
    step ranks their sentences, embedded now, as it ranks stored ones, each citing the chunks
    most of the community's members came from (the search's note says how to store them)."""
    from tripartite.kg.communities import report_sentences

    missing = [(c, n, text) for c in ranked if not c["sentences"]
               for n, text in enumerate(report_sentences(c["summary"] or "", c["findings"] or []))]
    if not missing:
        return
    vectors = embedder.embed([text for _, _, text in missing])
    norms = np.linalg.norm(vectors, axis=1)  # the dot product with a sentence's unit vector, as stored ones are ranked
    for (c, n, text), vector, norm in zip(missing, vectors, norms):
        c["sentences"].append({"n": n, "text": text, "cosine": float(vector @ query_vector / norm) if norm else 0.0,
                               "chunks": c["chunks"]})
    for c in {id(c): c for c, _, _ in missing}.values():
        c["sentences"].sort(key=lambda x: (-x["cosine"], x["n"]))


def _point_sources(graph: Graph, embedder, points: list[dict], by_number: dict[int, dict]) -> None:
    """A model's points get the chunks of the report sentences closest to them (the offline
    ranker's points carry their sentence's own); a report without stored sentences lends its
    community's top chunks."""
    needed = [(i, p) for i, p in enumerate(points) if "chunks" not in p]
    if not needed:
        return
    vectors = embedder.embed([p["description"] for _, p in needed])
    rows = graph.run("search/point_sources", per_point=SOURCES_PER_POINT,
                     points=[{"n": i, "vector": v.tolist(), "communities": [by_number[n]["id"] for n in p["reports"]]}
                             for (i, p), v in zip(needed, vectors)])
    found = {row["n"]: row["chunks"] for row in rows}
    for i, p in needed:
        p["chunks"] = found.get(i) or [c for n in p["reports"] if not by_number[n]["sentences"]
                                       for c in by_number[n]["chunks"]]


def global_search(graph: Graph, question: str, embedder, runner, max_tokens: int = MAX_TOKENS,
                  level: int | None = None, map_tokens: int = MAP_TOKENS, dry_run: bool = False,
                  subject: dict | None = None) -> dict:
    """The global-search prompt for a question (see the module doc). With a subject
    ({"object_id", "text"}), the object's text ranks the communities and is shown under the
    question, in the map calls and in the prompt."""
    if not question.strip():
        raise TripartiteError("the question is empty; ask something")
    levels = graph.run("search/community_levels")
    note = triplet_graph_gaps(graph)
    if not levels:
        raise TripartiteError("there are no community reports yet; build them with `tripartite kg extract` and then "
                              "`tripartite kg communities`" + (f" ({note})" if note else ""))
    known = [row["level"] for row in levels]
    if level is not None and level not in known:
        raise TripartiteError(f"no reports at level {level}; the levels with reports are {', '.join(map(str, known))}")
    level = choose_level(levels) if level is None else level
    query = subject["text"] if subject else question
    block = f"Object {subject['object_id']}:\n{subject['text'].strip()}" if subject else ""
    query_vector = question_vector(embedder, query)  # read by every model that can read it
    ranked = graph.run("search/ranked_communities", level=level, vector=query_vector.tolist(),
                       limit=MAP_LIMIT, chunks_per_community=CHUNKS_PER_COMMUNITY)
    if runner.provider.offline:
        _sentences_now(embedder, query_vector, ranked)
    asked = f"{question}\n{block}" if block else question
    tasks = map_tasks(asked, ranked, map_tokens, query)
    if ranked and not tasks:  # not one report fits: say so, rather than a prompt without points
        smallest = count_tokens(map_tasks(asked, ranked[:1], 10**9, query)[0].prompt)
        note = "; ".join(filter(None, [f"the map budget of {map_tokens:,} tokens holds no map prompt (the most "
                                       f"relevant report's takes {smallest:,}): give --map-tokens {smallest:,} or "
                                       "more", note]))
    spent = sum(count_tokens(t.prompt) for t in tasks)
    by_number = {n: c for n, c in enumerate(ranked, start=1)}
    mapped = [by_number[n] for task in tasks for n, _, _ in task.reports]
    head = {"mode": "global", "question": question, "level": level, "map_calls": len(tasks),
            "map_tokens": spent, "note": note}
    if dry_run and not runner.provider.offline:  # the points are the model's: the final prompt is at most the budget
        return {**head, "tokens": max_tokens, "total_tokens": spent + max_tokens, "estimate": True, "prompt": "",
                "references": [], "material": "", "communities": [_community(c) for c in mapped]}
    points = []
    for outcome in runner.run(tasks):
        if outcome.error:
            raise TripartiteError(f"a map call failed: {outcome.error}")
        if not outcome.skipped:
            points += outcome.result
    points = sorted((p for p in points if p["score"] > 0), key=lambda p: (-p["score"], p["description"]))
    seen: set[str] = set()
    points = [p for p in points if not (p["description"] in seen or seen.add(p["description"]))]  # each once
    _point_sources(graph, embedder, points, by_number)
    trails = {row["chunk_id"]: row for row in graph.run("search/chunk_trails",
                                                        chunk_ids=list(dict.fromkeys(c for p in points
                                                                                     for c in p["chunks"])))}
    prompt = SearchPrompt(question, max_tokens, INTRO, subject=block)
    behind: dict[str, dict] = {}
    for point in points:
        saved = prompt.checkpoint()
        numbers = [prompt.add_source(trails[c]) for c in point["chunks"] if c in trails]
        marks = "".join(f"[{r}]" for r in dict.fromkeys(numbers))
        line = f"- ({point['score']:g}) {quote(point['description'])} {marks}".rstrip()
        if None in numbers or not prompt.add_section("Points", [line], cited=[point["description"]]):
            prompt.rollback(saved)  # the best points are in; this one does not fit
            break
        behind.update((by_number[n]["id"], by_number[n]) for n in point["reports"])
    if tasks and not points:  # the map step answered and nothing scored: say so, not that room was short
        none = ("no report holds a point for the question (every map answer scored 0"
                + (": no report sentence is close to it, as for a question in a language the reports are not in"
                   if runner.provider.offline else "") + ")")
        head["note"] = "; ".join(filter(None, [none, head["note"]]))
    text = prompt.text()
    tokens = count_tokens(text)
    return {**head, "tokens": tokens, "total_tokens": spent + tokens, "prompt": text,
            "references": prompt.references(), "material": prompt.material(),
            "communities": [_community(c) for c in behind.values()]}


def _community(c: dict) -> dict:
    return {"id": c["id"], "level": c["level"], "title": c["title"]}
