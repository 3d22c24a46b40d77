"""OBO 1.4 (the Human Disease Ontology, HPO, GO...) through fastobo's syntax tree. fastobo
rather than pronto's object model: pronto refuses a file whose is_a names a term it does not
define, which every published subset (slim) does; here that is one reported line."""
from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import fastobo

from tripartite.ontology.reader import OntologyError
from tripartite.ontology.sources import Term, Terms, clean, utf8_text

RELATED_SCOPES = {"RELATED", "BROAD", "NARROW"}
COMMENT_LINE = re.compile(r"^[ \t]*!.*$", re.MULTILINE)


def read_obo(path: Path, data: bytes) -> Terms:
    # A line holding only a comment makes fastobo panic inside a frame (and refuse the header):
    # blank lines instead keep the line numbers of its errors.
    text = COMMENT_LINE.sub("", utf8_text(path, data))
    try:
        with _rust_panics_unprinted():
            document = fastobo.loads(text)
    except (SyntaxError, ValueError, OSError) as exc:
        raise OntologyError(f"{path}: not a valid OBO file ({clean(exc)[:160]}); fix the file") from None
    except BaseException as exc:
        if type(exc).__name__ != "PanicException":  # pyo3's, for a Rust panic; not importable beforehand
            raise
        raise OntologyError(f"{path}: fastobo failed on it ({clean(exc)[:120]}); check the file's OBO syntax "
                            f"near unusual lines") from None
    terms = Terms()
    names: dict[str, list[str]] = {}  # each term's name in each of its frames
    for frame in document:
        if not isinstance(frame, fastobo.term.TermFrame):
            continue  # typedefs and instances are not concepts
        term = terms.setdefault(str(frame.id), Term(str(frame.id)))
        names.setdefault(term.id, []).append(_read_frame(frame, term))
    terms.problems = [_merged(term_id, frames, terms[term_id].name)
                      for term_id, frames in names.items() if len(frames) > 1]
    return terms


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


def _read_frame(frame, term: Term) -> str:
    """One frame's clauses into the term, and the frame's name. A term may have several frames
    (OBO merges them): lists grow, and the first name and definition stay."""
    name = ""
    for clause in frame:
        if isinstance(clause, fastobo.term.NameClause):
            name = clean(clause.name)
            term.name = term.name or name
        elif isinstance(clause, fastobo.term.IsAClause):
            term.parents.append(str(clause.term))
        elif isinstance(clause, fastobo.term.SynonymClause):
            synonym = clause.synonym
            target = term.related if str(synonym.scope) in RELATED_SCOPES else term.exact
            target.append(clean(synonym.desc))
        elif isinstance(clause, fastobo.term.DefClause):
            term.definition = term.definition or clean(clause.definition)
        elif isinstance(clause, fastobo.term.IsObsoleteClause):
            term.obsolete = term.obsolete or bool(clause.obsolete)
    return name


def _merged(term_id: str, names: list[str], kept: str) -> str:
    """The report of a term defined in several frames, naming each frame's name: a second
    frame is often a copy-paste slip, and its name would otherwise vanish."""
    shown = [repr(name) if name else "no name" for name in names]
    listed = ", ".join(shown[:-1]) + " and " + shown[-1]
    every = "both" if len(names) == 2 else f"all {len(names)}"
    named = f"named {kept!r}" if kept else "with no name,"
    return (f"{term_id} is defined in {len(names)} [Term] frames, named {listed}; read as one term {named} "
            f"with the is_a links and synonyms of {every}")
