"""A CSV (or tab-separated) table of terms: a header row with id and name, optionally parent
(several separated by '|' or ';'), synonyms, related (related synonyms), description and
obsolete (true/yes/1). The simplest way to bring a terminology kept in a spreadsheet."""
from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from tripartite.ontology.reader import OntologyError
from tripartite.ontology.sources import Term, clean

COLUMNS = {"id", "name", "parent", "parents", "synonyms", "related", "description", "definition", "obsolete"}
SEPARATOR = re.compile(r"\s*[|;]\s*")


def _cells(value: str | None) -> list[str]:
    return [clean(v) for v in SEPARATOR.split(value or "") if clean(v)]


def read_table(path: Path) -> dict[str, Term]:
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError:
        raise OntologyError(f"{path}: not UTF-8 text; save it as UTF-8 (CSV UTF-8 in a spreadsheet)") from None
    delimiter = "\t" if path.suffix.lower() == ".tsv" else ","
    rows = csv.DictReader(io.StringIO(text, newline=""), delimiter=delimiter)  # quoted cells may hold newlines
    header = {(h or "").strip().lower() for h in rows.fieldnames or []} - {""}  # a trailing comma: no column
    if not {"id", "name"} <= header:
        raise OntologyError(f"{path}: the header row must name the columns id and name "
                            f"(and optionally parent, synonyms, related, description, obsolete)")
    unknown = sorted(header - COLUMNS)
    if unknown:
        raise OntologyError(f"{path}: unknown column(s) {', '.join(unknown)}; allowed: {', '.join(sorted(COLUMNS))}")
    terms: dict[str, Term] = {}
    for line, row in enumerate(rows, start=2):
        row = {(k or "").strip().lower(): v for k, v in row.items()}
        term_id = clean(row.get("id") or "")
        if not term_id:
            raise OntologyError(f"{path}: line {line} has no id; give every row one")
        if term_id in terms:
            raise OntologyError(f"{path}: line {line} repeats id {term_id!r}; ids must be unique")
        terms[term_id] = Term(term_id, clean(row.get("name") or ""),
                              _cells(row.get("parent")) + _cells(row.get("parents")),
                              _cells(row.get("synonyms")), _cells(row.get("related")),
                              clean(row.get("description") or row.get("definition") or ""),
                              (row.get("obsolete") or "").strip().lower() in {"true", "yes", "1", "x"})
    return terms
