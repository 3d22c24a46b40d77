"""Words and noun phrases for the offline triplet extractor and for question keywords: a real,
if small, shallow parser. English words get their possible parts of speech from lemminflect's
lexicon (a word that can be a noun or is unknown to it, like most names, can head a noun
phrase; one that can only be a verb cannot); Chinese is segmented and tagged by jieba. A noun
phrase is a run of adjectives and nouns ending in a noun (English: optionally "X of Y"); a
relation is a verb between two phrases of one clause.
"""
from __future__ import annotations

import logging
import re
from functools import lru_cache
from typing import NamedTuple

STOPWORDS = frozenset("""a an the and or nor for with that this from are was were has have had not but you your our their
its into onto than then them they there these those what when where which while who whom why how all any each few
more most other some such only own same can will just should could would may might must also very about above after
again against below between both during before being under over once here further off out until upon use used using
one two three new many much like make made based well via per get gets set sets of in on at to by as is be been it
if so no yes do does did done i we he she his her him us me my mine ours yours theirs also often usually still even
ever never always sometimes lot lots way ways thing things etc e.g i.e up down within without across among every cannot
because due since although though unless whether already almost
""".split())
# Words a question is phrased with, which name nothing to look up.
QUESTION_WORDS = frozenset("""what which who whom whose when where why how does did do is are was were can could should
would tell explain describe give list show about main most kind kinds type types role purpose mean means meaning
difference differ differs compare compared versus vs example examples name names happen happens important""".split())
# Verbs that questions use to ask (build, improve, compare...), not the thing asked about.
ASKING_VERBS = frozenset("""build improve compare find help work works support supports provide provides include
includes need needs recommend recommended advise advised affect affects cause causes lead leads consider considered
happen happens get know known take taken keep keeps choose chosen pick picked""".split())
NOT_LOOKED_UP = STOPWORDS | QUESTION_WORDS | ASKING_VERBS  # a question's English words no keyword is made of

CJK = re.compile(r"[\u3400-\u9fff\u3040-\u30ff]")
CLAUSE_BREAK = re.compile(r"[;:()\[\]\"“”]|,\s*(?:which|who|while|whereas|but|and)\b|[，；：。！？、（）]")
_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9'-]*")
# jieba's tags of words that can be part of a Chinese noun phrase: nouns (n, nr, ns, nt, nz,
# ng), verbal and adjectival nouns (vn, an), English words (eng) and noun-like morphemes.
CJK_NOMINAL = ("n", "vn", "an", "eng", "nz", "nr", "ns", "nt", "ng")
CJK_NUMERAL = re.compile(r"[0-9一二三四五六七八九十百千万两几]")
CJK_FUNCTION = set("的是在和与了或及等中为以对从把被这那就也都而并将其之所个们我你他她它吗呢么")
CJK_STOPWORDS = frozenset("""提供 支持 基于 包括 实现 主要 如下 一套 通过 使用 进行 可以 需要 能够 已经 目前 以及 或者 其中 因此 所以
但是 如果 同时 例如 比如 这些 那些 一个 一些 一种 不同 相关 具有 用于 作为 成为 可能 没有 非常 更加 整个 各种 其他 相应 对应 如何
什么 怎么 为了 进一步 之后 之前 方面 方式 情况 问题 内容 部分 过程 结果 时候 关注 围绕 准确 一起 当前 首先 然后 最后 哪些 哪个 为什么
怎样 是否 介绍 说明 描述 请问 主要 分别 有何 作用 区别 比较 怎么样 多少 几个 以下 上述 方法""".split())
MAX_PHRASE_WORDS = 6


class Phrase(NamedTuple):
    start: int
    end: int
    text: str


@lru_cache(maxsize=1)
def _lexicon():
    import lemminflect

    return lemminflect


@lru_cache(maxsize=50_000)
def singular_noun(word: str) -> str:
    """The word as a singular noun, where the lexicon knows it as a plural ('blockers' ->
    'blocker'); else the word itself."""
    lemmas = _lexicon().getLemma(word, upos="NOUN")
    return lemmas[0] if lemmas else word


@lru_cache(maxsize=50_000)
def parts_of_speech(word: str) -> frozenset[str]:
    """The universal parts of speech the word can have (lemminflect's lexicon); empty when the
    lexicon does not know it (names, terms, most technical words)."""
    return frozenset(_lexicon().getAllLemmas(word.lower()))


def _nominal(word: str) -> bool:
    tags = parts_of_speech(word)
    return not tags or "NOUN" in tags or "PROPN" in tags or word[:1].isupper() and word.lower() not in STOPWORDS


def _modifier_word(word: str) -> bool:
    tags = parts_of_speech(word)
    return _nominal(word) or "ADJ" in tags


def is_verb(word: str) -> bool:
    """A word that can be a verb (or an auxiliary), so it can relate the phrases around it."""
    lowered = word.lower()
    return lowered in BE_HAVE or bool(
        {"VERB", "AUX"} & parts_of_speech(lowered))


def _contraction(word: str) -> bool:
    """A word with an apostrophe that is not a possessive's: don't, you'll (not board's)."""
    lowered = word.lower().replace("\u2019", "'")
    return "'" in lowered and not lowered.endswith("'s")


def _word_ok(word: str) -> bool:
    """A word a noun phrase can hold: not a stop word, a number or a contraction (don't, you'll)."""
    lowered = word.lower().replace("’", "'")
    return len(word) > 1 and lowered not in STOPWORDS and not word.isdigit() and not _contraction(word)


DETERMINERS = frozenset("the a an their your its this these those his her our my every each some any no".split())
# Verb forms far more often verbs than plural nouns: they always end a noun phrase.
VERB_FORMS = frozenset("""uses makes has provides includes supports contains allows enables requires means helps shows
gives takes causes raises lowers increases reduces affects prevents treats leads becomes remains consists comprises help
depends relies refers describes defines builds creates stores runs calls generates""".split())
VERB_BEFORE = frozenset("""to should must can may will would could might do does did not cannot be been being is are
was were help helps helped can't don't doesn't won't""".split())


def _acts_as_verb(tokens, k: int) -> bool:
    """A word that can be a verb is one here when a modal or "to" comes before it, or a
    determiner after it (raises the risk; should take blood thinners)."""
    word = tokens[k].group()
    if word.lower() in VERB_FORMS:
        return True
    if not is_verb(word) or word[:1].isupper() and k > 0:
        return False
    before = tokens[k - 1].group().lower() if k > 0 else ""
    after = tokens[k + 1].group().lower() if k + 1 < len(tokens) else ""
    if before in VERB_BEFORE or after in DETERMINERS:
        return True
    if k > 0 and after in AFTER_VERB and _nominal(tokens[k - 1].group()) and _agrees(before, word.lower()):
        return True  # "a blood clot forms in", "people wake at": a subject, then its verb
    # An imperative opens a clause with a verb's base form ("drink less alcohol", "stop smoking"),
    # unless a verb follows ("risk grows").
    opens = k == 0 or before in COORDINATORS or sentence_gap(tokens, k).strip() in {",", ";", ":"}
    base = word.lower() in (_lexicon().getAllLemmas(word.lower()).get("VERB") or ())
    follows_verb = bool(after) and is_verb(after) and "NOUN" not in parts_of_speech(after)
    return opens and base and not follows_verb


AFTER_VERB = frozenset("""at in on to for from with into onto up down out back off over instead again away
through across high low well""".split())


def _agrees(noun: str, verb: str) -> bool:
    """Subject-verb agreement: a singular noun and a verb in -s, or a plural noun and a verb's
    base form."""
    plural = noun.endswith("s") and not noun.endswith("ss") or noun in {"people", "children", "men", "women"}
    third = verb.endswith("s") and not verb.endswith("ss")
    return third != plural and (third or verb in (_lexicon().getAllLemmas(verb).get("VERB") or ()))


def sentence_gap(tokens, k: int) -> str:
    """The text between token k - 1 and token k."""
    return tokens[k].string[tokens[k - 1].end():tokens[k].start()] if k > 0 else ""


def english_phrases(sentence: str) -> list[Phrase]:
    """Noun phrases: maximal runs of modifiers ending in a nominal word, at most
    MAX_PHRASE_WORDS words, optionally joined by one "of" (risk of stroke); a run whose every
    word is only a verb or adverb is not one, and a word acting as a verb ends a run."""
    tokens = list(_TOKEN.finditer(sentence))
    verbs = {k for k in range(len(tokens)) if _acts_as_verb(tokens, k)}

    def _modifier(word: str, k: int) -> bool:
        return k not in verbs and _modifier_word(word)
    phrases: list[Phrase] = []
    i = 0
    while i < len(tokens):
        j = i
        while j < len(tokens) and _word_ok(tokens[j].group()) and _modifier(tokens[j].group(), j) \
                and j - i < MAX_PHRASE_WORDS and (j == i or not sentence_gap(tokens, j).strip()):
            j += 1
        end = j  # tokens[i:end] are modifiers; the phrase ends at its last nominal word
        while end > i and not _nominal(tokens[end - 1].group()):
            end -= 1
        if end > i and end + 1 < len(tokens) and tokens[end].group().lower() == "of" \
                and sentence[tokens[end - 1].end():tokens[end].start()].strip() == "":
            k = end + 1
            while k < len(tokens) and _word_ok(tokens[k].group()) and _modifier(tokens[k].group(), k) \
                    and k - i < MAX_PHRASE_WORDS and not sentence_gap(tokens, k).strip():
                k += 1
            while k > end + 1 and not _nominal(tokens[k - 1].group()):
                k -= 1
            if k > end + 1:
                end = k
        if end > i and not _only_verbs(tokens[i:end]) and _contiguous(sentence, tokens[i:end]):
            phrases.append(Phrase(tokens[i].start(), tokens[end - 1].end(), sentence[tokens[i].start():tokens[end - 1].end()]))
            i = end
        else:
            i = max(i + 1, j if j > i and end == i else i + 1)
    return phrases


def _only_verbs(tokens) -> bool:
    return all(parts_of_speech(t.group()) and "NOUN" not in parts_of_speech(t.group())
               and "ADJ" not in parts_of_speech(t.group()) for t in tokens)


def _contiguous(sentence: str, tokens) -> bool:
    """No punctuation inside the phrase (a comma ends one)."""
    return all(re.fullmatch(r"\s+", sentence[a.end():b.start()]) for a, b in zip(tokens, tokens[1:]))


@lru_cache(maxsize=1)
def _jieba():
    import jieba
    import jieba.posseg

    jieba.setLogLevel(logging.WARNING)  # its start-up lines are not ours to print
    return jieba


def chinese_words(text: str) -> list[tuple[str, str]]:
    """(word, jieba's part-of-speech tag) of a Chinese text."""
    return [(p.word, p.flag) for p in _jieba().posseg.cut(text)]


def chinese_phrases(sentence: str) -> list[Phrase]:
    """Noun phrases of a Chinese sentence: runs of nominal words (at most three), of two
    characters or more, not a stop word."""
    phrases: list[Phrase] = []
    run: list[tuple[int, str]] = []
    at = 0

    def close() -> None:
        while run and (run[-1][1] in CJK_STOPWORDS):
            run.pop()
        text = "".join(w for _, w in run)
        if run and len(text) >= 2 and text not in CJK_STOPWORDS and not text.isascii():
            phrases.append(Phrase(run[0][0], run[0][0] + len(text), text))
        run.clear()

    for word, flag in chinese_words(sentence):
        nominal = flag.startswith(CJK_NOMINAL) and word not in CJK_FUNCTION and word.strip() and not word.isascii()
        if nominal and len(run) < 3:
            run.append((at, word))
        else:
            close()
            if nominal:
                run.append((at, word))
        at += len(word)
    close()
    return phrases


def noun_phrases(sentence: str) -> list[Phrase]:
    return chinese_phrases(sentence) if CJK.search(sentence) else english_phrases(sentence)


COORDINATORS = frozenset("and or but nor".split())
BE_HAVE = frozenset("is are was were be been has have had".split())


def relating_verb(between: str) -> str | None:
    """The verb by which the text between two phrases of a sentence relates them, or None:
    the stretch must stay inside one clause, be short, and hold a verb."""
    if CLAUSE_BREAK.search(between) or len(between) > 80:
        return None
    if CJK.search(between):
        verbs = [w for w, flag in chinese_words(between) if flag.startswith("v") and w not in CJK_STOPWORDS]
        return verbs[0] if verbs else None
    words = _TOKEN.findall(between)
    if len(words) > 6 or any(w.lower() in COORDINATORS for w in words):
        return None  # "drink less alcohol and stop smoking": two predicates, not one relation
    verbs = [w for w in words if is_verb(w) and w.lower() not in STOPWORDS - BE_HAVE]
    return verbs[-1] if verbs else None


def coordinated(between: str) -> bool:
    """Whether two phrases are items of one list ("stroke, heart attack and heart failure"):
    only commas, "and", "or" and determiners between them."""
    if CJK.search(between):
        return bool(re.fullmatch(r"\s*[、和与及或]\s*", between))
    rest = re.sub(r"(?i)\b(?:and|or|the|a|an)\b|,", " ", between)
    return between.strip() != "" and rest.strip() == "" or between.strip() == ","


def relation_type(verb: str) -> str:
    """A relation's type from its verb: the verb's lemma in capitals (RAISES -> RAISE)."""
    if CJK.search(verb):
        return verb
    lemmas = _lexicon().getAllLemmas(verb.lower()).get("VERB") or _lexicon().getAllLemmas(verb.lower()).get("AUX")
    return (lemmas[0] if lemmas else verb).upper().replace("-", "_")


def content_words(question: str) -> list[str]:
    """The words of a question worth looking up: English words that are not stop, question or
    asking words, and Chinese words (jieba) of two characters or more that are not stop words,
    in order, each once."""
    found: list[str] = []
    for part in re.split(r"([\u3400-\u9fff\u3040-\u30ff]+)", question):
        if CJK.search(part):
            found += [w for w, flag in chinese_words(part) if len(w) >= 2 and w not in CJK_STOPWORDS
                      and not set(w) <= CJK_FUNCTION and not flag.startswith(("r", "u", "p", "c", "d", "y", "e", "o"))
                      and not CJK_NUMERAL.search(w)]
        else:
            # A possessive as its possessor ("board's" -> "board"); a contraction's stem ("doesn") is no word.
            words = [re.split(r"['\u2019]", w)[0]
                     for w in re.findall(r"[A-Za-z][A-Za-z0-9-]{2,}(?:['\u2019][A-Za-z]+)?", part) if not _contraction(w)]
            found += [w for w in words if w.lower() not in NOT_LOOKED_UP]
    return list(dict.fromkeys(found))
