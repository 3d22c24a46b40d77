"""An object's text with each concept's mentions marked: where its name or a synonym stands
(as the offline reader finds them: whole words in their inflections, short all-caps ones by
case; a line break counts as a space), and for a concept the text never names, the sentences of the object's
extract for it that stand in the text. Each concept has its colour, and each mark leads to
the concept's account on the page."""
from __future__ import annotations

import re
from html import escape

from tripartite.analysis.extractive import synonym_pattern
from tripartite.lexical.sentences import sentences_of
from tripartite.ontology.concept import ConceptInfo

GOLDEN_ANGLE = 137.508  # successive hues as far apart as they can be


def concept_colour(index: int) -> str:
    """The inline style of the index-th concept's marks and chips."""
    return f"background: hsl({index * GOLDEN_ANGLE % 360:.0f} 85% 86%)"


def _loose(pattern: re.Pattern) -> re.Pattern:
    """The pattern with each escaped space matching any run of white space."""
    return re.compile(pattern.pattern.replace(r"\ ", r"\s+"))


def _sentence(sentence: str) -> re.Pattern:
    return re.compile(r"\s+".join(re.escape(word) for word in sentence.split()))


def mention_spans(text: str, concepts: list[dict]) -> list[tuple[int, int, str, str]]:
    """(start, end, concept_id, how) of the marks, without overlaps: a longer mention wins over
    the shorter ones inside it; `how` is "name" or "extract"."""
    found = []
    for c in concepts:
        info = ConceptInfo(c["concept_id"], c["name"], tuple(c.get("synonyms") or ()), "")
        named = [(m.start(), m.end(), c["concept_id"], "name") for m in _loose(synonym_pattern(info, inflected=True)).finditer(text)]
        if not named:  # the object speaks of it without naming it: its extract's sentences
            for paragraph in sentences_of(c.get("extract") or ""):
                for sentence in (s.strip() for s in paragraph):
                    hit = _sentence(sentence).search(text) if sentence else None
                    if hit:
                        named.append((hit.start(), hit.end(), c["concept_id"], "extract"))
        found += named
    kept: list[tuple[int, int, str, str]] = []
    for span in sorted(found, key=lambda s: (-(s[1] - s[0]), s[0])):
        if all(span[1] <= k[0] or span[0] >= k[1] for k in kept):
            kept.append(span)
    return sorted(kept)


def marked_text(text: str, concepts: list[dict]) -> str:
    """The text as HTML, each mention a <mark> in its concept's colour, linked to its account."""
    by_id = {c["concept_id"]: c for c in concepts}
    parts, last = [], 0
    for start, end, concept_id, how in mention_spans(text, concepts):
        c = by_id[concept_id]
        parts.append(escape(text[last:start]))
        parts.append(f'<a class="mention-link" href="#concept-{escape(concept_id)}"><mark class="mention {how}" '
                     f'data-concept="{escape(concept_id)}" style="{concept_colour(c.get("hue", 0))}" '
                     f'title="{escape(c["name"])}">{escape(text[start:end])}</mark></a>')
        last = end
    parts.append(escape(text[last:]))
    return "".join(parts)
