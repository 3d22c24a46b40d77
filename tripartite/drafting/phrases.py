"""The candidate phrases of an offline draft (`tripartite ontology draft`): noun phrases of the
documents' prose (kg/phrases.py), tested as terms (terms.py), counted per chunk and document
with where they were seen, the acronyms the text defines, and the phrases ranked by how often
and how widely they occur (too common ones left out). offline.py makes concepts of them."""
from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from tripartite.drafting import terms
from tripartite.kg.phrases import STOPWORDS, noun_phrases
from tripartite.lexical.sentences import sentences_of

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


def key_of(phrase: str) -> str:
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
        return key_of(words[0]) in heading_words
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
        words |= {key_of(w) for w in terms.heading_words(title) if w.strip()}
        parts = terms.heading_parts(title) + [p.text for p in noun_phrases(title)]
        keys |= {key_of(text) for text in map(terms.cleaned, parts) if text}
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
                    candidate = found.setdefault(key_of(text), Candidate(key_of(text)))
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
