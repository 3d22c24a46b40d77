"""What every reader's terms get looked at for, whatever the format, once read: obsolete terms
counted, SNOMED CT's qualifiers taken off synonyms, and labels that two terms share reported.

SNOMED CT's descriptions, copied into many ontologies' synonyms (a third of DOID's), end in a
semantic tag ("Asbestosis (disorder)") or say "NOS" (not otherwise specified): no text says
either, so a synonym with them is never found in a document. The tag is taken off; a "NOS"
variant is dropped when its bare text is already the name or a synonym, else kept bare."""
from __future__ import annotations

import re

from tripartite.ontology.sources import Term, Terms
from tripartite.ontology.sources.tally import Tally, named, quoted

SEMANTIC_TAG = re.compile(r"\s*\((?:disorder|finding|morphologic abnormality|procedure|situation|qualifier value|"
                          r"body structure|observable entity|clinical finding|regime/therapy)\)$")
NOS = re.compile(r"(?:,\s*|\s+)NOS\b|^NOS\b[,\s]*")  # the word, with the comma or space before it


def review(terms: Terms) -> None:
    live = [term for term in terms.values() if not term.obsolete]
    _report_obsolete(terms)
    _strip_qualifiers(live, terms.problems)
    _report_shared(live, terms.problems)


def _report_obsolete(terms: Terms) -> None:
    obsolete = Tally()
    for term in terms.values():
        if term.obsolete:
            obsolete.add(named(term.id, term.name))
    obsolete.report(terms.problems, "obsolete term(s)", "not taken into any branch")


def bare(synonym: str) -> tuple[str, bool, bool]:
    """The synonym without a SNOMED semantic tag and without 'NOS', and which of them it had."""
    untagged = SEMANTIC_TAG.sub("", synonym)
    plain = NOS.sub("", untagged).strip(" ,")
    return plain, untagged != synonym, plain != untagged


class _Qualified:
    """The synonyms read without their qualifiers, counted for the report."""

    def __init__(self) -> None:
        self.tags = self.nos = self.dropped = 0
        self.shown = Tally()

    def strip(self, term: Term) -> None:
        # what the term is already called without qualifiers: a bare text among these is a repeat
        seen = {term.name.casefold()} | {s.casefold() for s in (*term.exact, *term.abbreviations, *term.related)
                                         if bare(s)[0] == s}
        term.exact = self._kept(term.exact, seen)
        term.related = self._kept(term.related, seen)

    def _kept(self, synonyms: list[str], seen: set[str]) -> list[str]:
        kept = []
        for synonym in synonyms:
            plain, tagged, unspecified = bare(synonym)
            if plain != synonym:
                self.tags, self.nos = self.tags + tagged, self.nos + unspecified
                repeat = not plain or plain.casefold() in seen
                self.dropped += repeat
                self.shown.add(f"{quoted(synonym)} -> {'dropped' if repeat else quoted(plain)}")
                if repeat:
                    continue
                seen.add(plain.casefold())
            kept.append(plain)
        return kept

    def report(self, problems: list[str]) -> None:
        self.shown.report(problems, f"synonym(s) with SNOMED CT qualifiers ({self.tags:,} with a semantic tag such "
                          f"as '(disorder)', {self.nos:,} with 'NOS')", f"read without them; {self.dropped:,} of "
                          "them then repeated the name or another synonym and were dropped")


def _strip_qualifiers(live: list[Term], problems: list[str]) -> None:
    qualified = _Qualified()
    for term in live:
        qualified.strip(term)
    qualified.report(problems)


def _report_shared(live: list[Term], problems: list[str]) -> None:
    """Labels (name, exact synonym, abbreviation) that name two or more terms, case aside: a
    text that says one of them says the other too."""
    owners: dict[str, tuple[str, dict[str, str]]] = {}  # folded label -> (as first written, term id -> role)
    for term in live:
        for role, labels in (("name", [term.name]), ("synonym", term.exact), ("abbreviation", term.abbreviations)):
            for label in labels:
                if label:
                    owners.setdefault(label.casefold(), (label, {}))[1].setdefault(term.id, role)
    shared = Tally()
    for label, holders in owners.values():
        if len(holders) > 1:
            shared.add(f"{label}: " + ", ".join(f"{term_id} ({role})" for term_id, role in holders.items()))
    shared.report(problems, "label(s) naming two or more terms, as a name, an exact synonym or an abbreviation",
                  "reported only; a text using one may mean any of them", separator="; ")
