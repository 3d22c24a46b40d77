"""OBO 1.4 (the Human Disease Ontology, HPO, GO...) through fastobo's syntax tree. fastobo
rather than pronto's object model: pronto refuses a file whose is_a names a term it does not
define, which every published subset (slim) does; here that is one reported line.

Read from a term's frame: name, is_a (or, for a term defined only by intersection_of, the
named classes it intersects), synonyms by scope (EXACT; RELATED, BROAD and NARROW), with
abbreviations typed so (OMO:0003000, OMO:0003012) apart, def, xref and the skos:exactMatch and
closeMatch property values as cross-references, is_obsolete. A comment: is a curator's note,
never a definition: counted in the report."""
from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import fastobo

from tripartite.ontology.reader import OntologyError
from tripartite.ontology.sources import MATCHES, Term, Terms, clean, code, curie, is_abbreviation, utf8_text
from tripartite.ontology.sources.tally import COMMENTS, DEFINED, PARENTLESS, Tally, named, quoted

RELATED_SCOPES = {"RELATED", "BROAD", "NARROW"}
COMMENT_LINE = re.compile(r"^[ \t]*!.*$", re.MULTILINE)
LOGICAL = (fastobo.term.IntersectionOfClause, fastobo.term.UnionOfClause, fastobo.term.EquivalentToClause)


class _Refused(Exception):
    """fastobo could not read the text: its message, and the line it stopped at if it says."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


def read_obo(path: Path, data: bytes, strict: bool = False) -> Terms:
    # A line holding only a comment makes fastobo panic inside a frame (and refuse the header):
    # blank lines instead keep the line numbers of its errors.
    text = COMMENT_LINE.sub("", utf8_text(path, data))
    problems: list[str] = []
    with _rust_panics_unprinted():
        try:
            frames = list(_fastobo(lambda: fastobo.loads(text)))
        except _Refused as exc:
            if strict:
                raise OntologyError(f"{path}: not a valid OBO file ({exc}); fix the file, or leave out --strict to "
                                    "skip malformed lines") from None
            from tripartite.ontology.sources.obo_salvage import salvage
            salvaged = salvage(text, _document_or_none, _frames)
            frames, problems = salvaged.frames, salvaged.problems()
            if not any(isinstance(frame, fastobo.term.TermFrame) for frame in frames):
                raise OntologyError(f"{path}: not a valid OBO file ({exc}); fix the file") from None
    terms = _terms(frames)
    terms.problems[:0] = problems
    return terms


def _fastobo(call):
    """fastobo's result, or _Refused with its message and line, whatever it raised."""
    try:
        return call()
    except SyntaxError as exc:
        raise _Refused(clean(exc)[:160], exc.lineno) from None
    except (ValueError, OSError) as exc:
        raise _Refused(clean(exc)[:160]) from None
    except BaseException as exc:
        if type(exc).__name__ != "PanicException":  # pyo3's, for a Rust panic; not importable beforehand
            raise
        raise _Refused(f"fastobo failed on it: {clean(exc)[:120]}") from None


def _document_or_none(text: str):
    try:
        return _fastobo(lambda: fastobo.loads(text, threads=1))
    except _Refused:
        return None


def _frames(tail):
    """fastobo's frames of a file-like tail, one by one, until one fails (Stopped). One thread:
    fastobo's threads parse on past an error."""
    from tripartite.ontology.sources.obo_salvage import Stopped
    try:
        reader = _fastobo(lambda: fastobo.iter(tail, threads=1))
    except _Refused as exc:
        raise Stopped(exc.line) from None
    while True:
        try:
            frame = _fastobo(lambda: next(reader, None))
        except _Refused as exc:
            raise Stopped(exc.line) from None
        if frame is None:
            return
        yield frame


@contextmanager
def _rust_panics_unprinted() -> Iterator[None]:
    """Rust prints a panic's message and backtrace to the process's stderr before Python sees
    the exception; the user is to get one line."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


class _Notes:
    """What the frames hold beside a term's fields, for the report and for parents."""

    def __init__(self) -> None:
        self.names: dict[str, list[str]] = {}     # each term's name in each of its frames
        self.genus: dict[str, list[str]] = {}     # intersection_of's named classes, per term
        self.defined: set[str] = set()            # terms with a logical definition of any kind
        self.comments = Tally()


def _terms(frames) -> Terms:
    terms, notes = Terms(), _Notes()
    for frame in frames:
        if not isinstance(frame, fastobo.term.TermFrame):
            continue  # typedefs and instances are not concepts
        term_id = curie(str(frame.id))
        term = terms.setdefault(term_id, Term(term_id))
        notes.names.setdefault(term_id, []).append(_read_frame(frame, term, notes))
    terms.problems = [_merged(term_id, frames, terms[term_id].name)
                      for term_id, frames in notes.names.items() if len(frames) > 1]
    notes.comments.report(terms.problems, *COMMENTS)
    _parents_from_definitions(terms, notes, terms.problems)
    return terms


def _read_frame(frame, term: Term, notes: _Notes) -> str:
    """One frame's clauses into the term, and the frame's name. A term may have several frames
    (OBO merges them): lists grow, and the first name and definition stay."""
    name = ""
    for clause in frame:
        if isinstance(clause, fastobo.term.NameClause):
            name = clean(clause.name)
            term.name = term.name or name
        elif isinstance(clause, fastobo.term.IsAClause):
            term.parents.append(curie(str(clause.term)))
        elif isinstance(clause, fastobo.term.SynonymClause):
            _synonym(clause.synonym, term)
        elif isinstance(clause, fastobo.term.DefClause):
            term.definition = term.definition or clean(clause.definition)
        elif isinstance(clause, fastobo.term.IsObsoleteClause):
            term.obsolete = term.obsolete or bool(clause.obsolete)
        elif isinstance(clause, fastobo.term.XrefClause):
            _add(term.xrefs, code(str(clause.xref.id)))
        elif isinstance(clause, fastobo.term.PropertyValueClause):
            value = clause.property_value
            if str(value.relation) in MATCHES:  # skos:exactMatch "MESH:D005350" xsd:string, as ROBOT writes it
                _add(term.xrefs, code(clean(value.value)))
        elif isinstance(clause, LOGICAL):
            notes.defined.add(term.id)
            if isinstance(clause, fastobo.term.IntersectionOfClause) and clause.typedef is None:
                notes.genus.setdefault(term.id, []).append(curie(str(clause.term)))
        elif isinstance(clause, fastobo.term.CommentClause):
            notes.comments.add(f"{term.id}: {quoted(clean(clause.comment))}")
    return name


def _synonym(synonym, term: Term) -> None:
    scope, text = str(synonym.scope), clean(synonym.desc)
    if scope in RELATED_SCOPES:
        term.related.append(text)
    elif synonym.type is not None and is_abbreviation(str(synonym.type)):
        term.abbreviations.append(text)
    else:
        term.exact.append(text)


def _add(values: list[str], value: str) -> None:
    if value and value not in values:
        values.append(value)


def _parents_from_definitions(terms: Terms, notes: _Notes, problems: list[str]) -> None:
    """A term defined only by intersection_of (OWL's equivalentClass, as OWLAPI writes it to
    OBO) has no is_a: the named classes it intersects are its parents. One defined by union_of
    or equivalent_to alone has none."""
    taken, parentless = Tally(), Tally()
    for term_id in sorted(notes.defined):
        term = terms[term_id]
        if not term.parents:
            term.parents = list(dict.fromkeys(notes.genus.get(term_id, [])))
            (taken if term.parents else parentless).add(named(term.id, term.name))
    taken.report(problems, *DEFINED)
    parentless.report(problems, *PARENTLESS)


def _merged(term_id: str, names: list[str], kept: str) -> str:
    """The report of a term defined in several frames, naming each frame's name: a second
    frame is often a copy-paste slip, and its name would otherwise vanish."""
    shown = [repr(name) if name else "no name" for name in names]
    listed = ", ".join(shown[:-1]) + " and " + shown[-1]
    every = "both" if len(names) == 2 else f"all {len(names)}"
    named_as = f"named {kept!r}" if kept else "with no name,"
    return (f"{term_id} is defined in {len(names)} [Term] frames, named {listed}; read as one term {named_as} "
            f"with the is_a links and synonyms of {every}")
