"""What a reader passed over, as one report line per kind: how many and the first few, since a
published file can hold thousands of one thing (2,371 obsolete terms in a doid.obo) and the
import report is read by a person."""
from __future__ import annotations

SHOWN = 5  # examples per line
# lines the OBO and RDF readers share, so that an OBO file and its OWL twin report alike
COMMENTS = ("comment(s) (comment:, rdfs:comment) left out as curators' notes",
            "definitions are def:, IAO_0000115 or skos:definition")
DEFINED = ("term(s) defined only by a logical definition (intersection_of, owl:equivalentClass), with no is_a",
           "their parents are the named classes it intersects")
PARENTLESS = ("term(s) whose logical definition names no class to be under (a union, an equivalence to one class, "
              "restrictions only)", "they have no parents")


class Tally:
    """Things of one kind: the count, and the first SHOWN of them as they are to be shown."""

    def __init__(self) -> None:
        self.count = 0
        self.examples: list[str] = []

    def add(self, example: str, count: int = 1) -> None:
        self.count += count
        if len(self.examples) < SHOWN:
            self.examples.append(example)

    def line(self, what: str, consequence: str, separator: str = ", ") -> str:
        """'<count> <what> (e.g. a, b, c, ...): <consequence>'."""
        shown = separator.join(self.examples) + (separator + "..." if self.count > len(self.examples) else "")
        return f"{self.count:,} {what} (e.g. {shown}): {consequence}"

    def report(self, problems: list[str], what: str, consequence: str, separator: str = ", ") -> None:
        """Append the line to problems, if there was anything."""
        if self.count:
            problems.append(self.line(what, consequence, separator))


def named(term_id: str, name: str) -> str:
    """A term as the report shows it: its id and, when it has one, its name."""
    return f"{term_id} ({name})" if name else term_id


def quoted(text: str, limit: int = 60) -> str:
    """A label or note as an example: quoted, and cut short."""
    return repr(text if len(text) <= limit else text[:limit - 3] + "...")
