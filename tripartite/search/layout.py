"""How search prompts are laid out, within a token budget: the question, sections of lines (for
example entities, relations, community reports) and numbered sources, each traced to
Document > Section > Chunk in the references. What does not fit the budget is left out, last
added first."""
from __future__ import annotations

from dataclasses import dataclass, field

from tripartite.infra.quoting import quote
from tripartite.infra.tokens import count_tokens
from tripartite.lexical.trails import reference_cost, references_block


@dataclass
class SearchPrompt:
    question: str
    max_tokens: int
    intro: str = ""
    subject: str = ""   # an object's block ("Object X:\n<its text>"), when the search is for one
    sections: list[tuple[str, list[str]]] = field(default_factory=list)
    sources: list[dict] = field(default_factory=list)   # {chunk_id, text, document, section_path, index}
    cited: list[str] = field(default_factory=list)      # the document-derived text of the lines kept
    _used: int = 0

    def __post_init__(self) -> None:
        self._used = count_tokens(self._head() + "\nSources:\nReferences:\n")

    def _head(self) -> str:
        return (f"Question: {quote(self.question)}\n\n" + (f"{quote(self.subject.strip())}\n\n" if self.subject else "")
                + (f"{self.intro}\n\n" if self.intro else ""))

    def checkpoint(self) -> tuple:
        return (len(self.sources), [(title, list(lines)) for title, lines in self.sections], self._used,
                len(self.cited))

    def rollback(self, saved: tuple) -> None:
        sources, sections, used, cited = saved
        del self.sources[sources:]
        del self.cited[cited:]
        self.sections, self._used = sections, used

    def lines(self, title: str) -> list[str]:
        """The lines the section of that title holds so far."""
        return next((rows for name, rows in self.sections if name == title), [])

    def add_section(self, title: str, lines: list[str], share: int | None = None,
                    cited: list[str] | None = None) -> int:
        """Add as many of the lines as fit (in the budget, and in `share` tokens when given),
        to the section of that title if there is one; returns how many. `cited` gives, per
        line, the part of it that comes from the documents (default: the whole line); a
        coverage judge reads that, not labels such as an entity's name."""
        kept = []
        existing = next((rows for name, rows in self.sections if name == title), None)
        cost = 0 if existing is not None else count_tokens(f"{title}:\n")
        for line in lines:
            line_cost = count_tokens(line) + 1
            if self._used + cost + line_cost > self.max_tokens or (share is not None and cost + line_cost > share):
                break
            kept.append(line)
            cost += line_cost
        self.cited += (cited or lines)[:len(kept)]
        if kept:
            if existing is not None:
                existing.extend(kept)
            else:
                self.sections.append((title, kept))
            self._used += cost
        return len(kept)

    def add_source(self, chunk: dict) -> int | None:
        """Number a chunk as a source, if it fits (once per chunk); its number, or None. A chunk
        without text is a reference only (the prompt quotes something derived from it)."""
        for n, known in enumerate(self.sources, start=1):
            if known["chunk_id"] == chunk["chunk_id"]:
                return n
        n = len(self.sources) + 1
        quoted = count_tokens(f"[{n}] {quote(chunk['text'])}") + 1 if chunk.get("text") else 0
        cost = quoted + reference_cost(n, chunk, {c["document"] or "" for c in self.sources})
        if self._used + cost > self.max_tokens:
            return None
        self.sources.append(chunk)
        self._used += cost
        return n

    def references(self) -> list[dict]:
        return [{"n": n, "chunk_id": c["chunk_id"], "document": c["document"], "section_path": c["section_path"] or [],
                 "index": c.get("index")}
                for n, c in enumerate(self.sources, start=1)]

    def material(self) -> str:
        """What the prompt brings in from the graph (sections and quoted sources), without the
        question, the object or the references: what a judge of its coverage reads."""
        return "\n".join(self.cited + [c["text"] for c in self.sources if c.get("text")])

    def text(self) -> str:
        parts = [self._head().rstrip("\n")]
        for title, lines in self.sections:
            parts.append(f"{title}:\n" + "\n".join(lines))
        quoted = [(n, c) for n, c in enumerate(self.sources, start=1) if c.get("text")]
        if quoted:
            parts.append("Sources (numbers in brackets point to the references):\n"
                         + "\n".join(f"[{n}] {quote(c['text'])}" for n, c in quoted))
        if self.sources:
            parts.append("References:\n" + "\n".join(references_block(self.references())))
        text = "\n\n".join(parts) + "\n"
        while count_tokens(text) > self.max_tokens and self.sources:  # the estimate was short: drop the last
            self.sources.pop()
            return self.text()
        return text
