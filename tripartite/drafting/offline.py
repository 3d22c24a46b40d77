"""`tripartite ontology draft`: concept classes and concepts proposed from the ingested
documents, for a person to curate.

Offline: noun phrases (kg/phrases.py) cleaned and tested as terms (terms.py: no generic
nouns, proper names or fragments; a word that can be a verb only if a heading names it),
counted per chunk and document; a phrase scores by how often and how widely it occurs,
multi-word phrases above single words, more when a heading names it, and one found in most
chunks is too general to be a concept. The best phrases become concepts; a phrase whose
embedding is very close to a concept's, or an acronym the text defines for it ("atrial
fibrillation (AF)"), becomes its synonym. Concepts are grouped into classes by average-link
clustering of their embeddings. With an LLM: it reads sampled chunks, a few per call, and
proposes classes, concepts and synonyms; proposals are merged by name. With a seed branch
(`--seed FILE --root ID`, read like `ontology import`), the seed's concepts that the documents
name are kept, a phrase a seed concept already names (or lists as a synonym) is merged into
it, and new phrases join the closest seed class. Every concept states where it was
seen (`seen:` document > section, and how often), which the loader ignores.
"""
from __future__ import annotations

import hashlib
import math
import re
from collections import Counter, defaultdict

import numpy as np

from tripartite.drafting.phrases import Candidate, gather, key_of, ranked

SYNONYM_SIMILARITY = 0.85   # a phrase this close to a concept's name is another name for it
SEED_MATCH_SIMILARITY = 0.8  # a phrase this close to a seed concept is that concept
PLACE_SIMILARITY = 0.35      # a new concept joins the closest seed class at least this close


def _normalised(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)


def merge_synonyms(candidates: list[Candidate], vectors: np.ndarray, acronyms: dict[str, str],
                   limit: int) -> list[tuple[Candidate, list[Candidate], np.ndarray]]:
    """Concepts (head phrase, synonym phrases, head vector) from the best phrases down."""
    concepts: list[tuple[Candidate, list[Candidate], np.ndarray]] = []
    by_key: dict[str, int] = {}
    for candidate, vector in zip(candidates, vectors):
        long_form = acronyms.get(candidate.name)
        target = by_key.get(key_of(long_form)) if long_form else None
        if target is None and concepts:
            similarity = np.stack([head_vector for _, _, head_vector in concepts]) @ vector
            best = int(np.argmax(similarity))
            target = best if similarity[best] >= SYNONYM_SIMILARITY else None
        if target is not None:
            concepts[target][1].append(candidate)
        elif len(concepts) < limit:
            by_key[candidate.key] = len(concepts)
            concepts.append((candidate, [], vector))
    return concepts


def cluster(vectors: np.ndarray, groups: int) -> list[list[int]]:
    """Average-link agglomerative clustering into `groups` clusters. The mean similarity of a
    merged cluster to any other is the size-weighted mean of its parts' (Lance-Williams), so
    each merge updates one row: O(n^2) a merge, a second for 500 concepts."""
    n = len(vectors)
    members = [[i] for i in range(n)]
    similarity = (vectors @ vectors.T).astype(np.float64)
    np.fill_diagonal(similarity, -np.inf)
    alive = np.ones(n, dtype=bool)
    for _ in range(n - max(1, groups)):
        masked = np.where(alive[:, None] & alive[None, :], similarity, -np.inf)
        a, b = divmod(int(np.argmax(masked)), n)
        a, b = min(a, b), max(a, b)
        size_a, size_b = len(members[a]), len(members[b])
        merged = (size_a * similarity[a] + size_b * similarity[b]) / (size_a + size_b)
        similarity[a], similarity[:, a] = merged, merged
        similarity[a, a] = -np.inf
        alive[b] = False
        members[a] += members[b]
        members[b] = []
    return [m for m, live in zip(members, alive) if live]


def slug(text: str) -> str:
    """An ASCII id for a name; a name with no ASCII letters (Chinese, Greek) gets a short hash."""
    key = re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")[:48]
    return key or "c_" + hashlib.sha1(text.encode("utf-8")).hexdigest()[:8]


def unique_key(name: str, used: set[str]) -> str:
    """slug(name), made unique among `used` (which it joins)."""
    key, n = slug(name), 1
    while key in used:
        n += 1
        key = f"{slug(name)}_{n}"
    used.add(key)
    return key


def concept_entry(head: Candidate, synonyms: list[Candidate], used: set[str]) -> dict:
    key = unique_key(head.name, used)
    everywhere = Candidate(head.key, places=list(head.places), chunks=set(head.chunks), documents=set(head.documents))
    for synonym in synonyms:
        everywhere.absorb(synonym)
    entry = {"id": key, "name": head.name,
             "synonyms": list(dict.fromkeys(s.name for s in synonyms if s.name.casefold() != head.name.casefold())),
             "description": f"As the documents use it: \"{head.sentence}\"" if head.sentence else "",
             "seen": everywhere.seen()}
    return {k: v for k, v in entry.items() if v}


def offline_classes(chunks: list[dict], embed, max_concepts: int, max_classes: int | None = None) -> list[dict]:
    found, acronyms = gather(chunks)
    candidates = ranked(found, len(chunks))[:max_concepts * 4]
    if not candidates:
        return []
    vectors = _normalised(np.asarray(embed([c.name for c in candidates]), dtype=np.float32))
    concepts = merge_synonyms(candidates, vectors, acronyms, max_concepts)
    heads = np.stack([v for _, _, v in concepts])
    groups = max_classes or max(1, min(12, round(math.sqrt(len(concepts)))))
    used: set[str] = set()
    class_keys: set[str] = set()
    classes = []
    for members in sorted(cluster(heads, groups), key=lambda m: min(m)):
        centre = heads[members].mean(axis=0)
        order = sorted(members, key=lambda i: -float(heads[i] @ centre))
        names = [concepts[i][0].name for i in order[:2]]
        classes.append({"id": unique_key("_".join(names), class_keys), "name": " / ".join(names),
                        "description": "Proposed by `ontology draft` from its members; name it.",
                        "concepts": [concept_entry(concepts[i][0], concepts[i][1], used) for i in sorted(members)]})
    return classes


def label_key(text: str) -> str:
    """A name or synonym as it is compared with another: case folded, spaces normalised, the
    last word singular ('Heart  Attacks' and 'heart attack' are one label)."""
    return key_of(" ".join(text.casefold().split()))


def seed_labels(seeds: list[tuple[dict, dict]]) -> dict[str, int]:
    """label_key -> the index of the seed concept that names it or lists it as a synonym."""
    labels: dict[str, int] = {}
    for i, (_, concept) in enumerate(seeds):
        for term in (concept["name"], *concept.get("synonyms", ())):
            if term.strip():
                labels.setdefault(label_key(term), i)
    return labels


def seeded_classes(chunks: list[dict], embed, seed_classes: list[dict], max_new: int) -> tuple[list[dict], int]:
    """The seed's concepts the documents name (by name or exact synonym, or a phrase very close
    to one), with where they were seen; new phrases join the closest seed class. A new concept
    whose name or synonym is a seed concept's name or synonym is that seed concept: it is merged
    into it, its other names becoming the seed concept's synonyms. Returns the classes and how
    many seed concepts the documents never name."""
    from tripartite.analysis.extractive import synonym_pattern
    from tripartite.ontology.concept import ConceptInfo

    found, acronyms = gather(chunks)
    seeds = [(k, c) for k in seed_classes for c in k["concepts"]]
    seed_vectors = _normalised(np.asarray(embed([c["name"] for _, c in seeds]), dtype=np.float32))
    labels = seed_labels(seeds)
    hits: dict[int, Candidate] = {}

    def hit(i: int) -> Candidate:
        return hits.setdefault(i, Candidate(seeds[i][1]["id"], Counter({seeds[i][1]["name"]: 1})))

    lowered = [chunk["text"].casefold() for chunk in chunks]
    for i, (_, concept) in enumerate(seeds):
        names = [t.casefold() for t in (concept["name"], *concept.get("synonyms", ())) if t.strip()]
        pattern = synonym_pattern(ConceptInfo(concept["id"], concept["name"], tuple(concept.get("synonyms", ())), ""))
        for chunk, text in zip(chunks, lowered):  # a substring test first: thousands of seeds, hundreds of chunks
            if any(name in text for name in names) and pattern.search(chunk["text"]):
                hit(i).saw(chunk)
    candidates = ranked(found, len(chunks))[:max_new * 4]
    vectors = _normalised(np.asarray(embed([c.name for c in candidates]), dtype=np.float32)) if candidates else \
        np.zeros((0, seed_vectors.shape[1]), dtype=np.float32)
    # A candidate that a seed concept names (or whose acronym's long form it names) is that concept.
    named: dict[int, int] = {}
    for candidate in candidates:
        long_form = acronyms.get(candidate.name)
        owner = labels.get(candidate.key, labels.get(label_key(long_form)) if long_form else None)
        if owner is not None:
            named[id(candidate)] = owner
    new: dict[str, list[tuple[Candidate, list[Candidate], np.ndarray]]] = defaultdict(list)
    fresh = []
    for candidate, vector in zip(candidates, vectors):
        similarity = seed_vectors @ vector
        best = int(np.argmax(similarity))
        if id(candidate) not in named and similarity[best] >= SEED_MATCH_SIMILARITY:
            hit(best).absorb(candidate)
        else:  # named ones too: the phrases grouped with them below become the seed concept's synonyms
            fresh.append((candidate, vector))
    more_names: dict[int, list[str]] = defaultdict(list)
    if fresh:
        merged = merge_synonyms([c for c, _ in fresh], np.stack([v for _, v in fresh]), acronyms,
                                max_new + len(named))
        placed = 0
        for head, synonyms, vector in merged:
            owner = next((named[id(c)] for c in (head, *synonyms) if id(c) in named), None)
            if owner is not None:
                for phrase in (head, *synonyms):
                    hit(owner).absorb(phrase)
                    more_names[owner].append(phrase.name)
            elif placed < max_new:
                placed += 1
                similarity = seed_vectors @ vector
                best = int(np.argmax(similarity))
                klass = seeds[best][0]["id"] if similarity[best] >= PLACE_SIMILARITY else ""
                new[klass].append((head, synonyms, vector))
    used = {c["id"] for _, c in seeds}
    kept = {seeds[i][1]["id"] for i in hits}
    classes = []
    for klass in seed_classes:
        members = []
        for i, (owner, concept) in enumerate(seeds):
            if owner is klass and i in hits:  # broader links only to seed concepts that stay
                broader = [b for b in concept.get("broader", []) if b in kept]
                entry = {k: v for k, v in concept.items() if k != "broader"}
                synonyms = _with_new_names(concept, more_names.get(i, []), labels, i)
                if synonyms:
                    entry["synonyms"] = synonyms
                members.append({**entry, **({"broader": broader} if broader else {}), "seen": hits[i].seen()})
        members += [_new(concept_entry(h, s, used)) for h, s, _ in new.get(klass["id"], [])]
        if members:
            classes.append({**klass, "concepts": members})
    if new.get(""):
        classes.append({"id": "unplaced", "name": "Not close to any seed class",
                        "description": "Phrases the documents use often that no seed class is close to.",
                        "concepts": [_new(concept_entry(h, s, used)) for h, s, _ in new[""]]})
    return classes, len(seeds) - len(hits)


def _with_new_names(concept: dict, names: list[str], labels: dict[str, int], index: int) -> list[str]:
    """The seed concept's synonyms, then the documents' names for it that it lacks (a name
    another seed concept has stays that concept's)."""
    synonyms = list(concept.get("synonyms", []))
    known = {label_key(t) for t in (concept["name"], *synonyms)}
    for name in names:
        key = label_key(name)
        if key not in known and labels.get(key, index) == index:
            synonyms.append(name)
            known.add(key)
    return synonyms


def _new(entry: dict) -> dict:
    entry["seen"][0] = f"not in the seed; {entry['seen'][0]}"
    return entry
