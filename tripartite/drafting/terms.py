"""Which noun phrases of a text name a concept of its domain: the offline drafter's term test.

The shallow parser (kg/phrases.py) finds noun phrases; most are not terms. A phrase is
cleaned first: words that only point or judge ("the following command", "a given pin",
"higher risk", "enough blood") and contractions whose apostrophe the text lost ("youre") are
cut from its front, and "risk of stroke", "type of fat", "symptoms of heart failure" give way
to what they are about (stroke, fat, heart failure). Then it is refused when its head names
no domain's thing (a generic noun: body, people, treatment, data, performance; one that
names a kind of thing, like disease or sensor, is a class's name, not a concept), when it is
a proper name of an organisation, place or publication (a capitalised word inside the phrase:
"Department of Health", "United States", "Physical Activity Guidelines"), or when it is a
single word the lexicon also reads as a verb or adjective (stroke, torque, current) that
no heading of the documents names: the documents' headings are what they say they are about.
"""
from __future__ import annotations

import re

from tripartite.kg.phrases import STOPWORDS, parts_of_speech, singular_noun

# Nouns any text uses that name no concept of a domain: people, time, quantity and order,
# the parts of a text or a task, and words that name a kind of thing (a class, not a concept).
GENERIC = frozenset("""
people person persons patient patients doctor doctors user users expert experts provider providers member members
child children adult adults man men woman women family families individual individuals everyone someone anyone
researcher researchers scientist scientists group groups public community communities human humans friend friends
day days week weeks month months year years hour hours minute minutes second seconds moment time times period
periods age ages date dates today life lives lifetime
thing things nothing something anything everything part parts piece pieces way ways lot lots kind kinds sort sorts
type types form forms case cases place places example examples instance instances fact facts point points end ends
start side sides area areas region regions number numbers amount amounts quantity level levels degree degrees
percent percentage share rest range ranges set sets list lists item items total bit bits unit units
body bodies organ organs
use uses step steps section sections note notes page pages chapter article articles document documents text
information detail details value values result results problem problems issue issues question questions answer
answers reason reasons purpose purposes order orders name names term terms word words topic topics overview
introduction summary background usage example guide guides manual source sources reference references version
versions support help need needs idea way matter aspect aspects feature features function functions
change changes difference differences addition magnitude direction directions effect effects cause causes factor
factors risk risks chance chances goal goals plan plans program programs study studies research process
processes method methods approach approaches technique techniques procedure procedures operation operations
performance response responses behavior behaviour action actions activity activities task tasks work job
practice practices condition conditions situation situations state states status health care
disease diseases illness illnesses disorder disorders symptom symptoms sign signs treatment treatments therapy
therapies medicine medicines medication medications drug drugs test tests exam exams complication complications
food foods product products substance substances
data error errors parameter parameters configuration configurations setting settings option options default
defaults mode modes system systems device devices tool tools component components application applications
communication semantics controller controllers sensor sensors equipment hardware software library libraries
file files line lines command commands input inputs output outputs max min first last energy
""".split())
# Words before a noun that point or judge rather than say what kind (they are cut from a phrase's front).
QUALIFIERS = frozenset("""following given certain enough likely higher lower greater lesser less least more most other
several various different specific particular same good better best bad worse worst many few possible necessary
available appropriate additional extra important main major minor simple real true actual overall general typical
usual common related respective previous next last new old own whole entire certain such any total further
""".split()) - {"whole"}
# Contractions whose apostrophe a text lost (youre, dont): not words of a name.
CONTRACTIONS = frozenset("""youre youll youve youd dont doesnt didnt isnt arent wasnt werent cant couldnt wont wouldnt
shouldnt theyre theyll theyve thats whats theres heres its it's im ive hes shes lets""".split())
# "X of Y" where X only measures, sorts or points at Y: Y is the concept.
GIVE_WAY = frozenset("""risk risks type types kind kinds amount amounts number numbers group groups level levels part
parts form forms symptoms symptom signs sign set sets range lot lots use piece pieces source sources example
examples list lists degree degrees percent chance chances value values history cause causes effect effects""".split())
_WORD = re.compile(r"\S+")


def _plain(word: str) -> str:
    return word.casefold().strip(".,;:!?\"'()[]")


def cleaned(phrase: str) -> str | None:
    """The phrase without the words that point or judge at its front, "X of Y" as Y where X
    only measures or points at Y; None if nothing is left."""
    words = phrase.split()
    if len(words) >= 3 and "of" in [w.casefold() for w in words[1:-1]]:
        at = [w.casefold() for w in words].index("of")
        if singular_noun(_plain(words[at - 1])) in GIVE_WAY or _plain(words[at - 1]) in GIVE_WAY:
            words = words[at + 1:]
    while words and (_plain(words[0]) in QUALIFIERS or _plain(words[0]) in CONTRACTIONS
                     or _plain(words[0]) in STOPWORDS):
        words = words[1:]
    while words and (_plain(words[-1]) in CONTRACTIONS or _plain(words[-1]) in STOPWORDS):
        words = words[:-1]
    return " ".join(words) or None


def head(phrase: str) -> str:
    """The word a noun phrase is about: the last one, or the one before "of" ("shortness of breath")."""
    words = [w.casefold() for w in phrase.split()]
    if "of" in words[1:-1]:
        words = words[:words.index("of")]
    return singular_noun(words[-1]) if words[-1].endswith("s") and len(words[-1]) > 3 else words[-1]


def generic(phrase: str) -> bool:
    """Every word generic, or a head that is generic under modifiers that do not say what kind
    (a single word: it is generic itself)."""
    words = [w.casefold() for w in phrase.split() if w.casefold() != "of"]
    if all(w in GENERIC or singular_noun(w) in GENERIC for w in words):
        return True
    return len(words) == 1 and (words[0] in GENERIC or head(phrase) in GENERIC)


def proper_name(surface: str) -> bool:
    """A name of an organisation, place or publication: a capitalised word after the first
    ("department of Health", "united States", "physical Activity Guidelines"), not an acronym
    or a name with inner capitals (CAN-FD, BiSS-C, iOS)."""
    return any(w[:1].isupper() and w[1:].islower() and w.isalpha() for w in surface.split()[1:])


def contraction(phrase: str) -> bool:
    return any(_plain(w) in CONTRACTIONS for w in phrase.split())


_PART = re.compile(r"\s*(?:[:;,?!()\[\]`/\u2013\u2014]+|\s-\s|\b(?:with|for|of|in|on|to|from|by|at|vs|versus)\b)\s*",
                   re.I)
_ITEM = re.compile(r"\s+(?:and|or|&)\s+", re.I)


def _words(text: str) -> list[str]:
    return re.findall(r"[^\W\d_][\w'-]*", text or "")


def heading_parts(title: str) -> list[str]:
    """A heading cut at punctuation and prepositions, and its lists into their items."""
    return [item for part in _PART.split(title) if part and part.strip() for item in _ITEM.split(part) if item.strip()]


def heading_words(title: str) -> set[str]:
    """The single words a heading names as a topic: its parts of one word ("Stroke", "Torque",
    "Motor with Hall Effect Sensors", "Diabetes and Prediabetes"). A word inside a longer part
    only builds a longer name (the "field" of "Field Weakening"), and so does one that shares
    the noun after it ("Medical and Family Histories")."""
    found = set()
    for part in _PART.split(title):
        items = [_words(item) for item in _ITEM.split(part or "")]
        if all(len(words) == 1 for words in items):
            found |= {words[0].casefold() for words in items if words[0].casefold() not in STOPWORDS}
    return found


def needs_heading(word: str) -> bool:
    """A single word the lexicon also knows as something other than a noun (stroke, torque,
    current, normal): a concept only if a heading names it."""
    tags = parts_of_speech(word.casefold())
    return bool(tags) and not tags <= {"NOUN", "PROPN"} and not word.isupper()
