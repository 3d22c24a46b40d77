"""An object's text with each concept's mentions marked: where its name or a synonym stands
(as the offline reader finds them: whole words, short all-caps ones by case), and for a concept
the text never names, the sentences of the object's extract for it that stand in the text."""
from __future__ import annotations

from html import escape

from tripartite.analysis.extractive import synonym_pattern
from tripartite.lexical.sentences import sentences_of
from tripartite.ontology.concept import ConceptInfo


def mention_spans(text: str, concepts: list[dict]) -> list[tuple[int, int, str, str]]:
    """(start, end, concept_id, how) of the marks, without overlaps: a longer mention wins over
    the shorter ones inside it; `how` is "name" or "extract"."""
    found = []
    for c in concepts:
        info = ConceptInfo(c["concept_id"], c["name"], tuple(c.get("synonyms") or ()), "")
        named = [(m.start(), m.end(), c["concept_id"], "name") for m in synonym_pattern(info).finditer(text)]
        if not named:  # the object speaks of it without naming it: its extract's sentences
            for paragraph in sentences_of(c.get("extract") or ""):
                for sentence in (s.strip() for s in paragraph):
                    at = text.find(sentence) if sentence else -1
                    if at >= 0:
                        named.append((at, at + len(sentence), c["concept_id"], "extract"))
        found += named
    kept: list[tuple[int, int, str, str]] = []
    for span in sorted(found, key=lambda s: (-(s[1] - s[0]), s[0])):
        if all(span[1] <= k[0] or span[0] >= k[1] for k in kept):
            kept.append(span)
    return sorted(kept)


def marked_text(text: str, concepts: list[dict]) -> str:
    """The text as HTML, each mention a <mark> naming its concept."""
    names = {c["concept_id"]: c["name"] for c in concepts}
    parts, last = [], 0
    for start, end, concept_id, how in mention_spans(text, concepts):
        parts.append(escape(text[last:start]))
        parts.append(f'<mark class="mention {how}" data-concept="{escape(concept_id)}" '
                     f'title="{escape(names[concept_id])}">{escape(text[start:end])}</mark>')
        last = end
    parts.append(escape(text[last:]))
    return "".join(parts)
