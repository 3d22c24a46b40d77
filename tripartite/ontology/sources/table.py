"""A CSV (or tab-separated) table of terms: a header row with id and name, optionally parent
(several separated by '|' or ';'), synonyms, abbreviations, related (related synonyms),
description, xref (codes elsewhere: MESH:D006973, several as parents are), notation (the
term's own code; `code` is read as it) and obsolete (true/yes/1). The simplest way to bring a
terminology kept in a spreadsheet."""
from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from pathlib import Path

from tripartite.ontology.reader import OntologyError
from tripartite.ontology.sources import Term, Terms, clean, code, curie, utf8_text

COLUMNS = {"id", "name", "parent", "parents", "synonyms", "abbreviations", "related", "description", "definition",
           "xref", "xrefs", "notation", "code", "obsolete"}
SEPARATOR = re.compile(r"\s*[|;]\s*")


def _cells(value: str | None) -> list[str]:
    return [clean(v) for v in SEPARATOR.split(value or "") if clean(v)]


def read_table(path: Path, data: bytes) -> Terms:
    text = utf8_text(path, data, " (CSV UTF-8 in a spreadsheet)")
    delimiter = "\t" if path.suffix.lower() == ".tsv" else ","
    records = _records(path, text, delimiter)
    _, first = next(records, (1, []))
    header = [cell.strip().lower() for cell in first]
    if not {"id", "name"} <= set(header):
        raise OntologyError(f"{path}: the header row must name the columns id and name "
                            f"(and optionally parent, synonyms, abbreviations, related, description, xref, notation, "
                            f"obsolete)")
    unknown = sorted(set(header) - COLUMNS - {""})  # a trailing comma: no column
    if unknown:
        raise OntologyError(f"{path}: unknown column(s) {', '.join(unknown)}; allowed: {', '.join(sorted(COLUMNS))}")
    if {"notation", "code"} <= set(header):
        raise OntologyError(f"{path}: the columns notation and code both give the term's own code; keep one")
    terms = Terms()
    for line, record in records:
        row = dict(zip(header, record))
        term_id = curie(clean(row.get("id") or ""))
        if not term_id:
            raise OntologyError(f"{path}: line {line} has no id; give every row one")
        if term_id in terms:
            raise OntologyError(f"{path}: line {line} repeats id {term_id!r}; ids must be unique")
        terms[term_id] = _term(term_id, row)
    return terms


def _term(term_id: str, row: dict[str, str]) -> Term:
    parents = _cells(row.get("parent")) + _cells(row.get("parents"))
    return Term(term_id, clean(row.get("name") or ""), [curie(p) for p in parents],
                _cells(row.get("synonyms")), _cells(row.get("related")),
                clean(row.get("description") or row.get("definition") or ""),
                (row.get("obsolete") or "").strip().lower() in {"true", "yes", "1", "x"},
                xrefs=list(dict.fromkeys(code(x) for x in _cells(row.get("xref")) + _cells(row.get("xrefs")))),
                notation=clean(row.get("notation") or row.get("code") or ""),
                abbreviations=_cells(row.get("abbreviations")))


def _records(path: Path, text: str, delimiter: str) -> Iterator[tuple[int, list[str]]]:
    """The non-blank records with the line each starts on. Strict, so that a stray quote is
    an error here rather than a cell that swallows the rest of the file; quoted cells may hold
    newlines, and a cell may be as long as the file."""
    if len(text) > csv.field_size_limit():  # process-wide, and only ever raised: the file is bounded
        csv.field_size_limit(len(text))
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    while True:
        line = reader.line_num + 1
        try:
            record = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise _malformed(path, text, delimiter, line, reader.line_num, exc) from None
        if record:
            yield line, record


def _malformed(path: Path, text: str, delimiter: str, start: int, end: int, exc: csv.Error) -> OntologyError:
    """One line for csv's error, naming where the quote opens when one never closes (csv only
    says the data ended)."""
    opening = _opening_quote(text, delimiter)
    at_end = end == _line_of(text, len(text)) - text.endswith(("\n", "\r"))
    if at_end and opening is not None and _line_of(text, opening) >= start:
        return OntologyError(f"{path}: line {_line_of(text, opening)}: the quote opening a cell is never closed, so "
                             f"the cell would run to the end of the file; close it, or double a quote meant inside "
                             f"a cell (\"\")")
    return OntologyError(f"{path}: line {end}: not a valid CSV row ({exc}); a quoted cell must end right after "
                         f"its closing quote, and a quote inside it is doubled (\"\")")


def _opening_quote(text: str, delimiter: str) -> int | None:
    """Where the quote opening a cell that never closes is: the last run of an odd number of
    quotes, if it starts a cell (inside such a cell quotes come in pairs; its opening quote
    with the pairs after it is odd)."""
    end = len(text)
    while (last := text.rfind('"', 0, end)) >= 0:
        first = last
        while first > 0 and text[first - 1] == '"':
            first -= 1
        if (last - first) % 2 == 0:
            return first if first == 0 or text[first - 1] in (delimiter, "\n", "\r") else None
        end = first
    return None


def _line_of(text: str, offset: int) -> int:
    """The line an offset is on, counting line ends as csv does: \n, \r\n or a lone \r."""
    return 1 + text.count("\n", 0, offset) + text.count("\r", 0, offset) - text.count("\r\n", 0, offset)
