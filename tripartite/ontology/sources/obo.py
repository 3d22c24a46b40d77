"""OBO 1.4 (the Human Disease Ontology, HPO, GO...) through fastobo's syntax tree. fastobo
rather than pronto's object model: pronto refuses a file whose is_a names a term it does not
define, which every published subset (slim) does; here that is one reported line."""
from __future__ import annotations

from pathlib import Path

import fastobo

from tripartite.ontology.reader import OntologyError
from tripartite.ontology.sources import Term, clean

RELATED_SCOPES = {"RELATED", "BROAD", "NARROW"}


def read_obo(path: Path) -> dict[str, Term]:
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError:
        raise OntologyError(f"{path}: not UTF-8 text; save it as UTF-8") from None
    try:
        document = fastobo.loads(text)
    except (SyntaxError, ValueError, OSError) as exc:
        raise OntologyError(f"{path}: not a valid OBO file ({clean(exc)[:160]}); fix the file") from None
    terms: dict[str, Term] = {}
    for frame in document:
        if not isinstance(frame, fastobo.term.TermFrame):
            continue  # typedefs and instances are not concepts
        term = terms.setdefault(str(frame.id), Term(str(frame.id)))
        for clause in frame:
            if isinstance(clause, fastobo.term.NameClause):
                term.name = clean(clause.name)
            elif isinstance(clause, fastobo.term.IsAClause):
                term.parents.append(str(clause.term))
            elif isinstance(clause, fastobo.term.SynonymClause):
                synonym = clause.synonym
                target = term.related if str(synonym.scope) in RELATED_SCOPES else term.exact
                target.append(clean(synonym.desc))
            elif isinstance(clause, fastobo.term.DefClause):
                term.definition = clean(clause.definition)
            elif isinstance(clause, fastobo.term.IsObsoleteClause):
                term.obsolete = bool(clause.obsolete)
    return terms
