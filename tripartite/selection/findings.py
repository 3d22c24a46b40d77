"""When a note's sentence says no more than an earlier one: "• Cardiovascular: Denies chest pain."
after "He denies chest pain and abdominal pain." The object prompt points to the earlier one
instead of repeating it. Erring is costly one way only (a finding dropped), so the test is
strict: the later sentence's words, fillers aside, must stand in the earlier one as one run, in
order, two words at least, numbers whole ("1.5" is not "5"), under no negation the later one
does not repeat ("Chest pain." after "Denies fever or chest pain." says something new; "Denies
chest pain." after "Denies fever or chest pain." says nothing new), and a
label before it ("Allergies:", "Left eye:") must be the earlier sentence's own, or, where the
earlier sentence has none, the later one must state its polarity itself ("Cardiovascular:
Denies chest pain.")."""
from __future__ import annotations

import re

# Words that carry no finding ("He denies chest pain." says no more than "Denies chest pain.").
_FILLER = frozenset("a an the and or of to in on at by for as is are was were be been being he she they it his "
                    "her their its this that these those there also".split())
NEGATIONS = frozenset("no not denies denied deny negative without absent never none".split())
# Words that state a finding's polarity (a labelled sentence beginning with one says it itself).
_POLARITY = NEGATIONS | frozenset("reports reported endorses endorsed positive has had have with complains".split())
# Words after which a denial no longer reaches ("Denies fever but has chest pain.").
_TURNS = (_POLARITY - NEGATIONS) | frozenset(
    "but however although though except apart aside other than noted present seen found shows showed".split())
# A finding list's label before the finding: "• Cardiovascular: ", "Left eye: ".
_LABEL = re.compile(r"^[\W_]*(?:([A-Z][\w/ -]{0,40}):\s+)?")
_TOKEN = re.compile(r"\d+(?:[.,/:]\d+)*|[^\W\d_]+")


def _read(sentence: str) -> tuple[str, list[str]]:
    """(its label, lowercased; its words without fillers, numbers whole)."""
    match = _LABEL.match(sentence)
    label = (match.group(1) or "").strip().lower()
    words = [w for w in _TOKEN.findall(sentence[match.end():].lower()) if w not in _FILLER]
    return label, words


def says_no_more(later: str, earlier: str) -> bool:
    """True when `later` says nothing `earlier` does not (see the module doc)."""
    label, words = _read(later)
    earlier_label, earlier_words = _read(earlier)
    if len(words) < 2:
        return False
    if label and label != earlier_label and (earlier_label or words[0] not in _POLARITY):
        return False  # "Left eye:" after "Right eye:"; "Allergies: penicillin" after "Started penicillin"
    if _run_at(words, earlier_words, lambda start: not any(w in NEGATIONS for w in earlier_words[:start])
               or words[0] in NEGATIONS):
        return True
    # A denial of one item of a denied list: "Denies shortness of breath." after "The patient denies
    # chest pain, shortness of breath, or swelling.", the denial reaching it over no "but" or "has".
    return words[0] in NEGATIONS and _run_at(words[1:], earlier_words,
                                             lambda start: _denied_at(earlier_words, start, start + len(words) - 1))


def _run_at(words: list[str], within: list[str], holds) -> bool:
    """Whether `words` stand in `within` as one run at a place where `holds(place)`."""
    n = len(words)
    return any(within[start:start + n] == words and holds(start) for start in range(len(within) - n + 1))


def _denied_at(words: list[str], start: int, end: int) -> bool:
    """Whether a negation before words[start:end] reaches it: no word between turns it ("but",
    "has"), nor the word after it ("edema noted")."""
    before = [i for i in range(start) if words[i] in NEGATIONS]
    return (bool(before) and not any(w in _TURNS for w in words[before[-1] + 1:start])
            and not (end < len(words) and words[end] in _TURNS))
