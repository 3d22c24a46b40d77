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
from dataclasses import dataclass, field
import numpy as np

from tripartite.drafting import terms
from tripartite.kg.phrases import STOPWORDS, noun_phrases
from tripartite.lexical.sentences import sentences_of

SYNONYM_SIMILARITY = 0.85   # a phrase this close to a concept's name is another name for it
SEED_MATCH_SIMILARITY = 0.8  # a phrase this close to a seed concept is that concept
PLACE_SIMILARITY = 0.35      # a new concept joins the closest seed class at least this close
TOO_COMMON = 0.5             # a phrase in more than this share of the chunks is too general
MAX_PLACES = 5
HEADED = 2                   # a phrase a heading names weighs as if seen twice as often
# Text that names nothing: links' targets, bare URLs, code blocks (their words are not prose).
NOT_PROSE = re.compile(r"```.*?```|\]\([^)]*\)|https?://\S+|<[^>]+>", re.DOTALL)
ACRONYM = re.compile(r"\b((?:[A-Za-z][\w-]*\s+){0,5}[A-Za-z][\w-]*)\s*\(([A-Z][A-Za-z0-9]{1,7})\)")


@dataclass
class Candidate:
    key: str
    forms: Counter = field(default_factory=Counter)
    chunks: set = field(default_factory=set)
    documents: set = field(default_factory=set)
    places: list = field(default_factory=list)   # "document > section", first seen first
    sentence: str = ""
    headed: bool = False    # a heading of the documents names it

    @property
    def name(self) -> str:
        return self.forms.most_common(1)[0][0]

    def saw(self, chunk: dict) -> bool:
        """Note that `chunk` uses it; False if that chunk was noted already."""
        if chunk["id"] in self.chunks:
            return False
        self.chunks.add(chunk["id"])
        self.documents.add(chunk["document"])
        if place(chunk) not in self.places:
            self.places.append(place(chunk))
        return True

    def absorb(self, other: "Candidate") -> None:
        """Where `other` was seen counts as where this was seen (a synonym, a matching phrase)."""
        self.chunks |= other.chunks
        self.documents |= other.documents
        self.places += [p for p in other.places if p not in self.places]

    def seen(self) -> list[str]:
        """The `seen:` lines of a drafted concept: how often, then up to MAX_PLACES places."""
        return [f"{len(self.chunks)} chunk(s) in {len(self.documents)} document(s)", *self.places[:MAX_PLACES]]

    def score(self, total_chunks: int) -> float:
        words = len(self.key.split())
        return len(self.chunks) * (1 + math.log(len(self.documents))) * (1 + 0.5 * min(words - 1, 2)) \
            * (HEADED if self.headed else 1)


def _key(phrase: str) -> str:
    """Lower case, the last word in its singular: 'Beta blockers' and 'beta blocker' are one."""
    words = phrase.lower().split()
    if len(words[-1]) > 3 and words[-1].endswith("s") and not words[-1].endswith("ss"):
        from tripartite.kg.phrases import singular_noun

        words[-1] = singular_noun(words[-1]).lower()
    return " ".join(words)


def _surface(text: str) -> str:
    """A phrase as a name: a sentence's capital dropped ('Beta blockers' -> 'beta blockers'),
    acronyms and names with inner capitals (AF, PROFINET, CAN-FD, iOS) kept."""
    first = text.split()[0]
    if first[:1].isupper() and first[1:] == first[1:].lower():
        return text[0].lower() + text[1:]
    return text


def _acceptable(phrase: str, heading_words: set[str]) -> bool:
    """A cleaned phrase that may name a concept (terms.py): at most four words, no digits, not
    generic, no lost contraction; one word: an acronym (of two letters: checked once the text's
    definitions are known), a noun and nothing else (or a word the lexicon does not know), or a
    word that can also be a verb (stroke, torque) that a heading names."""
    words = phrase.lower().split()
    too_short = len(phrase) < 3 and not (len(phrase) == 2 and phrase.isupper())
    if too_short or len(words) > 4 or any(ch.isdigit() for ch in phrase) or words[0] in STOPWORDS \
            or words[-1] in STOPWORDS or terms.contraction(phrase) or terms.generic(phrase):
        return False
    if len(words) == 1 and not (phrase.isupper() and len(phrase) >= 2) and terms.needs_heading(words[0]):
        return _key(words[0]) in heading_words
    return True


def prose(text: str) -> str:
    """The text without code blocks, URLs and link targets ("[manual](http...)" -> "[manual]")."""
    return NOT_PROSE.sub(lambda m: "]" if m.group().startswith("]") else " ", text)


def place(chunk: dict) -> str:
    return f"{chunk['document']} > {chunk['section']}" if chunk["section"] and chunk["section"] != chunk["document"] \
        else chunk["document"]


def boilerplate(chunks: list[dict]) -> set[str]:
    """Sentences that nearly every document repeats (a source line, a footer): not what they are about."""
    documents = {chunk["document"] for chunk in chunks}
    if len(documents) < 3:
        return set()
    seen: dict[str, set] = defaultdict(set)
    for chunk in chunks:
        for paragraph in sentences_of(prose(chunk["text"])):
            for sentence in paragraph:
                seen[sentence.strip()].add(chunk["document"])
    return {s for s, where in seen.items() if len(where) >= max(3, 0.8 * len(documents))}


def headings(chunks: list[dict]) -> tuple[set[str], set[str]]:
    """(the keys of the phrases the headings name, the words they are about) of the documents'
    and sections' titles: what the documents say they are about."""
    titles = {title for chunk in chunks for title in (chunk["section"], chunk["document"]) if title}
    keys, words = set(), set()
    for title in titles:
        words |= {_key(w) for w in terms.heading_words(title) if w.strip()}
        parts = terms.heading_parts(title) + [p.text for p in noun_phrases(title)]
        keys |= {_key(text) for text in map(terms.cleaned, parts) if text}
    return keys, words


def gather(chunks: list[dict]) -> tuple[dict[str, Candidate], dict[str, str]]:
    """Candidate phrases with their counts and places, and acronym -> long form as defined in the text."""
    found: dict[str, Candidate] = {}
    acronyms: dict[str, str] = {}
    repeated = boilerplate(chunks)
    headed, heading_words = headings(chunks)
    for chunk in chunks:
        for paragraph in sentences_of(prose(chunk["text"])):
            for sentence in paragraph:
                if sentence.strip() in repeated:
                    continue
                for long_form, short in ACRONYM.findall(sentence):
                    words = long_form.split()[-len(short):]  # as many words as the acronym has letters
                    if "".join(w[0] for w in words).lower() == short.lower():
                        acronyms.setdefault(short, " ".join(words))
                for phrase in noun_phrases(sentence):
                    text = terms.cleaned(phrase.text.strip())
                    if not text or not _acceptable(text, heading_words):
                        continue
                    candidate = found.setdefault(_key(text), Candidate(_key(text)))
                    candidate.forms[_surface(text)] += 1
                    if candidate.saw(chunk) and not candidate.sentence:
                        candidate.sentence = sentence.strip()[:240]
    for key, candidate in list(found.items()):  # two letters only as an acronym the text defines (AF, not US)
        if terms.proper_name(candidate.name) or len(key) == 2 and candidate.name not in acronyms:
            del found[key]
        else:
            candidate.headed = key in headed
    return found, acronyms


def ranked(found: dict[str, Candidate], total_chunks: int) -> list[Candidate]:
    common = max(3, TOO_COMMON * total_chunks)
    least = 2 if total_chunks >= 8 else 1
    keep = [c for c in found.values() if least <= len(c.chunks) <= common]
    return sorted(keep, key=lambda c: (-c.score(total_chunks), c.key))


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
        target = by_key.get(_key(long_form)) if long_form else None
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
    return _key(" ".join(text.casefold().split()))


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
