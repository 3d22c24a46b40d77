"""The offline providers of the triplet graph: real, deterministic algorithms, so the whole path
runs with no key and no network (answers are not cached: they cost nothing).

Entities of a chunk are the terms it names: ontology concepts (by name or synonym), product and
technical names (acronyms, CamelCase, hyphenated or dotted names such as DB-GPT or Neo4j) and
phrases that recur across the corpus (word pairs in Latin script, character runs in Chinese and
Japanese). Two entities named in one sentence are related, the sentence being the relation's
description. A community's report is drawn from its members' names, descriptions and strongest
relations; an entity's long descriptions are cut to their first sentences.
"""
from __future__ import annotations

import hashlib
import json
import math
import re
from collections import Counter
from typing import Iterable

from tripartite.analysis.extractive import synonym_pattern
from tripartite.infra.llm.providers import ConceptInfo, Usage
from tripartite.kg.prompts import passage
from tripartite.kg.schema import TripletTask, normal_name
from tripartite.lexical.sentences import sentences_of

ENTITIES_PER_CHUNK = 12
MAX_TERMS = 2000
PAIRS_PER_SENTENCE = 3
TECHNICAL_NAME = re.compile(r"(?<![A-Za-z0-9_-])(?:[A-Za-z]+[-.][A-Za-z0-9]+(?:[-.][A-Za-z0-9]+)*|[A-Z]{2,}[A-Za-z0-9]*"
                   r"|[A-Z][a-z]+[A-Z][A-Za-z0-9]*|[A-Za-z]+[0-9][A-Za-z0-9]*)(?![A-Za-z0-9_-])")
_WORD = re.compile(r"[A-Za-z][A-Za-z-]{2,}")
_URLISH = re.compile(r"\S*(?:://|www\.|[?&][\w-]*=)\S*")   # links and their query strings name nothing
_HEX_ID = re.compile(r"[0-9a-f]*[0-9][0-9a-f]*")             # hashes and ids, not names
CJK_RUN = re.compile(r"[\u3400-\u9fff\u3040-\u30ff]{2,}")
STOPWORDS = set("""the and for with that this from are was were has have had not but you your our their its into
onto than then them they there these those what when where which while who whom why how all any each few more most
other some such only own same can will just should could would may might must also very about above after again
against below between both during before being under over once here further off out until upon use used using
one two three new many much like make made based well via per get gets set sets""".split())
CJK_FUNCTION = set("的是在和与了或及等中为以对从把被这那就也都而并将其之所个们我你他她它")
# Frequent two-character verbs and adverbs that recur without naming anything.
CJK_STOPWORDS = set("""提供 支持 基于 包括 实现 主要 如下 一套 通过 使用 进行 可以 需要 能够 已经 目前 以及 或者 其中 因此 所以
但是 如果 同时 例如 比如 这些 那些 一个 一些 一种 不同 相关 具有 用于 作为 成为 可能 没有 非常 更加 整个 各种 其他 相应 对应 如何
什么 怎么 为了 进一步 之后 之前 方面 方式 情况 问题 内容 部分 过程 结果 时候 关注 围绕 准确 一起 当前 首先 然后 最后""".split())


def recurring_terms(texts: Iterable[str], min_chunks: int = 3) -> list[str]:
    """Terms that recur in at least `min_chunks` chunks: Latin-script word pairs without stop
    words, and maximal Chinese/Japanese character runs of 2 to 6 (a run inside a longer one that
    recurs as often is dropped). Sorted by how many chunks hold them, then by the term."""
    seen: Counter[str] = Counter()
    for text in texts:
        terms: set[str] = set()
        for sentence in (s for p in sentences_of(passage(text)) for s in p):
            words = [w.lower() for w in _WORD.findall(sentence)]
            terms.update(f"{a} {b}" for a, b in zip(words, words[1:]) if a not in STOPWORDS and b not in STOPWORDS)
            for run in CJK_RUN.findall(sentence):
                for n in range(2, 7):
                    terms.update(run[i:i + n] for i in range(len(run) - n + 1)
                                 if run[i] not in CJK_FUNCTION and run[i + n - 1] not in CJK_FUNCTION
                                 and run[i:i + n] not in CJK_STOPWORDS)
        seen.update(terms)
    by_count: dict[int, list[str]] = {}
    for term, n in seen.items():
        if n >= min_chunks:
            by_count.setdefault(n, []).append(term)
    maximal = []
    for n, group in by_count.items():  # a run is maximal unless a longer one recurs exactly as often
        longer: list[str] = []
        for term in sorted(group, key=len, reverse=True):
            if not any(term in other for other in longer if len(other) > len(term)):
                maximal.append((n, term))
            longer.append(term)
    return [term for n, term in sorted(maximal, key=lambda x: (-x[0], x[1]))][:MAX_TERMS]


def _blank(match: re.Match) -> str:
    return " " * len(match.group())  # positions stay those of the sentence


class TripletExtractor:
    """Offline answers to TripletTask (see the module doc)."""

    offline = True
    name = "extractive"
    model = "triplets-extractive-v1"

    def __init__(self, concepts: list[ConceptInfo], terms: list[str]):
        self.concepts = [(c, synonym_pattern(c)) for c in concepts]
        self.terms = terms
        longest_first = sorted(terms, key=len, reverse=True)
        self._terms = re.compile("|".join(map(re.escape, longest_first)), re.IGNORECASE) if terms else None
        # What an answer depends on besides its chunk: the ontology and the corpus's recurring terms.
        context = json.dumps([[c.name, *c.synonyms] for c in concepts] + [terms], ensure_ascii=False)
        self.context_hash = hashlib.sha1(context.encode("utf-8")).hexdigest()[:12]

    def fingerprint(self, answer: dict) -> str:
        """'<context>:<answer>' hashes: a chunk extracted in another context is extracted again
        only where its answer changed (see kg/extract.py, plan)."""
        digest = hashlib.sha1(json.dumps(answer, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()
        return f"{self.context_hash}:{digest[:16]}"

    def mentions(self, sentence: str) -> list[tuple[int, str, str]]:
        """(position, name, type) of the entities a sentence names."""
        found: list[tuple[int, str, str]] = []
        for concept, pattern in self.concepts:
            if (m := pattern.search(sentence)):
                found.append((m.start(), concept.name, "OntologyConcept"))
        found += [(m.start(), m.group(), "Name") for m in TECHNICAL_NAME.finditer(_URLISH.sub(_blank, sentence))
                  if not (len(m.group()) >= 6 and _HEX_ID.fullmatch(m.group()))]
        if self._terms is not None:
            found += [(m.start(), m.group().lower(), "Term") for m in self._terms.finditer(sentence)]
        unique: dict[str, tuple[int, str, str]] = {}
        for position, name, kind in sorted(found):
            unique.setdefault(normal_name(name), (position, name, kind))
        return sorted(unique.values())

    def answer(self, task: TripletTask) -> tuple[dict, Usage]:
        sentences = [s for p in sentences_of(passage(task.text)) for s in p]
        entities: dict[str, dict] = {}
        per_sentence = []
        for sentence in sentences:
            named = self.mentions(sentence)
            per_sentence.append((sentence, named))
            for _, name, kind in named:
                entities.setdefault(normal_name(name), {"name": name, "type": kind,
                                                        "description": clause(sentence, name)})
        rank = {"OntologyConcept": 0, "Name": 1, "Term": 2}
        kept = sorted(entities, key=lambda key: (rank[entities[key]["type"]], key))[:ENTITIES_PER_CHUNK]
        relations, pairs = [], set()
        for sentence, named in per_sentence:
            names = [name for _, name, _ in named if normal_name(name) in kept]
            made = 0
            for a, b in zip(names, names[1:]):  # neighbours in the sentence
                pair = tuple(sorted((normal_name(a), normal_name(b))))
                if pair[0] != pair[1] and pair not in pairs and made < PAIRS_PER_SENTENCE:
                    pairs.add(pair)
                    relations.append({"source": a, "target": b, "type": "MENTIONED_WITH",
                                      "description": clause(sentence, a)})
                    made += 1
        return {"entities": [entities[k] for k in kept], "relations": relations}, Usage()


def clause(sentence: str, name: str, limit: int = 160) -> str:
    """The part of a sentence around a name, at most `limit` characters: the description of
    the name, or of a relation, that an extractive provider can give."""
    if len(sentence) <= limit:
        return sentence
    at = max(0, sentence.lower().find(name.lower()))
    start = max(0, at - limit // 3)
    return ("..." if start else "") + sentence[start:start + limit].strip() + "..."


class ReportWriter:
    """Offline answers to community-report and entity-summary tasks (see kg/communities.py)."""

    offline = True
    name = "extractive"
    model = "reports-extractive-v1"

    def answer(self, task) -> tuple[dict | str, Usage]:
        return task.offline_answer(), Usage()


def extractive_report(members: list[dict], relations: list[dict], size: int) -> dict:
    """A report from the community's data: members by degree, relations by weight; `size`
    counts all its members (the data shows the most connected of them)."""
    size = max(size, len(members))
    top = [m["name"] for m in members[:3]]
    described = [m for m in members if m.get("description")]
    summary = f"A community of {size} entities around {', '.join(top)}."
    sentences = [m["description"] for m in described[:2]]
    findings = [{"summary": f"{r['source']} {r['type'].lower().replace('_', ' ')} {r['target']}",
                 "explanation": r.get("description") or ""} for r in relations[:4]]
    weight = sum(r.get("weight", 1) for r in relations)
    return {"title": ", ".join(top)[:120], "summary": " ".join([summary, *sentences]),
            "rating": round(min(10.0, 2.0 * math.log2(1 + size + weight)), 1),
            "rating_explanation": f"{size} entities and {len(relations)} relations",
            "findings": findings}


def extractive_summary(descriptions: list[str], words: int) -> str:
    """The descriptions' sentences, in order and each once, up to `words` words."""
    kept, count, seen = [], 0, set()
    for sentence in (s for d in descriptions for p in sentences_of(d) for s in p):
        if sentence in seen:
            continue
        seen.add(sentence)
        size = len(sentence.split()) or len(sentence) // 2
        if kept and count + size > words:
            break
        kept.append(sentence)
        count += size
    return " ".join(kept)
