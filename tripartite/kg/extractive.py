"""The offline providers of the triplet graph: real, deterministic algorithms, so the whole path
runs with no key and no network (answers are not cached: they cost nothing).

Entities of a chunk are the things it names: ontology concepts (by name or synonym), product
and technical names (acronyms, CamelCase, hyphenated or dotted names such as DB-GPT or Neo4j)
and noun phrases that recur across the corpus (kg/phrases.py: a lexicon-tagged shallow parse
in English, jieba's segmentation and tags in Chinese). Two entities are related only where a
sentence relates them: a verb between them within one clause ("high blood pressure raises the
risk of stroke" gives RAISE); the sentence's clause is the relation's description. A
community's report is drawn from its members' names, descriptions and strongest relations; an
entity's long descriptions are cut to their first sentences.
"""
from __future__ import annotations

import hashlib
import json
import math
import re
from collections import Counter
from typing import Iterable

from tripartite.analysis.extractive import synonym_pattern
from tripartite.infra.llm.providers import Usage
from tripartite.ontology.concept import ConceptInfo
from tripartite.kg.phrases import coordinated, noun_phrases, parts_of_speech, relating_verb
from tripartite.kg.phrases import relation_type as phrase_relation_type
from tripartite.kg.prompts import passage
from tripartite.kg.schema import TripletTask, normal_name
from tripartite.lexical.sentences import sentences_of

ENTITIES_PER_CHUNK = 12
MAX_TERMS = 2000
TECHNICAL_NAME = re.compile(r"(?<![A-Za-z0-9_-])(?:[A-Za-z]+[-.][A-Za-z0-9]+(?:[-.][A-Za-z0-9]+)*|[A-Z]{2,}[A-Za-z0-9]*"
                   r"|[A-Z][a-z]+[A-Z][A-Za-z0-9]*|[A-Za-z]+[0-9][A-Za-z0-9]*)(?![A-Za-z0-9_-])")
_URLISH = re.compile(r"\S*(?:://|www\.|[?&][\w-]*=)\S*")   # links and their query strings name nothing
_HEX_ID = re.compile(r"[0-9a-f]*[0-9][0-9a-f]*")             # hashes and ids, not names
CJK_RUN = re.compile(r"[\u3400-\u9fff\u3040-\u30ff]{2,}")


def recurring_terms(texts: Iterable[str], min_chunks: int = 2) -> list[str]:
    """The corpus's one-word terms: single-word noun phrases (kg/phrases.py) found in at least
    `min_chunks` chunks, lower-cased: Chinese ones, and English words the lexicon does not know
    (names and terms of the field, not common nouns). Phrases of several words are entities
    wherever they occur. Sorted by how many chunks hold them, then by the term."""
    seen: Counter[str] = Counter()
    for text in texts:
        terms: set[str] = set()
        for sentence in (s for p in sentences_of(passage(text)) for s in p):
            for phrase in noun_phrases(_URLISH.sub(_blank, sentence)):
                term = phrase.text.lower()
                if CJK_RUN.search(term) or not parts_of_speech(term):
                    terms.add(term)
        seen.update(terms)
    ranked = sorted((term for term, n in seen.items() if n >= min_chunks), key=lambda t: (-seen[t], t))
    return ranked[:MAX_TERMS]


def _blank(match: re.Match) -> str:
    return " " * len(match.group())  # positions stay those of the sentence


class TripletExtractor:
    """Offline answers to TripletTask (see the module doc)."""

    offline = True
    name = "extractive"
    model = "triplets-extractive-v2"

    def __init__(self, concepts: list[ConceptInfo], terms: list[str]):
        self.concepts = [(c, synonym_pattern(c)) for c in concepts]
        self.terms = set(terms)
        # What an answer depends on besides its chunk: the ontology and the corpus's recurring terms.
        context = json.dumps([[c.name, *c.synonyms] for c in concepts] + [terms], ensure_ascii=False)
        self.context_hash = hashlib.sha1(context.encode("utf-8")).hexdigest()[:12]

    def fingerprint(self, answer: dict) -> str:
        """'<context>:<answer>' hashes: a chunk extracted in another context is extracted again
        only where its answer changed (see kg/extract.py, plan)."""
        digest = hashlib.sha1(json.dumps(answer, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()
        return f"{self.context_hash}:{digest[:16]}"

    def mentions(self, sentence: str) -> list[tuple[int, int, str, str]]:
        """(start, end, name, type) of the entities a sentence names, left to right, none
        overlapping (the earlier, then the longer, wins)."""
        found: list[tuple[int, int, str, str]] = []
        for concept, pattern in self.concepts:
            for m in pattern.finditer(sentence):
                found.append((m.start(), m.end(), concept.name, "OntologyConcept"))
        cleaned = _URLISH.sub(_blank, sentence)
        found += [(m.start(), m.end(), m.group(), "Name") for m in TECHNICAL_NAME.finditer(cleaned)
                  if not (len(m.group()) >= 6 and _HEX_ID.fullmatch(m.group()))]
        found += [(p.start, p.end, p.text.lower(), "Term") for p in noun_phrases(cleaned)
                  if p.text.lower() in self.terms or " " in p.text.strip()]  # a phrase of words names a thing
        rank = {"OntologyConcept": 0, "Name": 1, "Term": 2}
        kept: list[tuple[int, int, str, str]] = []
        for start, end, name, kind in sorted(found, key=lambda f: (f[0], -(f[1] - f[0]), rank[f[3]])):
            if kept and start < kept[-1][1]:
                continue  # inside a mention already taken
            kept.append((start, end, name, kind))
        return kept

    def answer(self, task: TripletTask) -> tuple[dict, Usage]:
        sentences = [s for p in sentences_of(passage(task.text)) for s in p]
        entities: dict[str, dict] = {}
        per_sentence = []
        for sentence in sentences:
            named = self.mentions(sentence)
            per_sentence.append((sentence, named))
            for _, _, name, kind in named:
                entities.setdefault(normal_name(name), {"name": name, "type": kind,
                                                        "description": clause(sentence, name)})
        rank = {"OntologyConcept": 0, "Name": 1, "Term": 2}
        kept = set(sorted(entities, key=lambda key: (rank[entities[key]["type"]], key))[:ENTITIES_PER_CHUNK])
        relations, pairs = [], set()
        for sentence, named in per_sentence:
            named = [m for m in named if normal_name(m[2]) in kept]
            for i, ((_, a_end, a, _), (b_start, _, b, _)) in enumerate(zip(named, named[1:])):
                verb = relating_verb(sentence[a_end:b_start])  # neighbours in the sentence, a verb between
                if verb is None:
                    continue
                targets = [b]  # and the items of a list that follows: "raises the risk of X, Y and Z"
                for (_, c_end, _, _), (d_start, _, d, _) in zip(named[i + 1:], named[i + 2:]):
                    if not coordinated(sentence[c_end:d_start]):
                        break
                    targets.append(d)
                for target in targets:
                    pair = (normal_name(a), normal_name(target))
                    if pair[0] != pair[1] and pair not in pairs:
                        pairs.add(pair)
                        relations.append({"source": a, "target": target, "type": phrase_relation_type(verb),
                                          "description": clause(sentence, a)})
        return {"entities": [entities[k] for k in sorted(kept, key=lambda key: (rank[entities[key]["type"]], key))],
                "relations": relations}, Usage()


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
