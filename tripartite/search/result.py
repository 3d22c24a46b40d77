"""The one result every prompt builder gives, for an object or a free-text question, in every
mode (search/modes.py builds them all): the command line, `ask`, the MCP server, eval and the
neo4j-graphrag retriever read it alike.

`details()` is the builder's own form, which `--format json` prints and scripts read (the
Tripartite prompt's concepts with every extract's w, p and reason; global search's map calls;
...); the typed fields are what every mode has."""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, PrivateAttr


class Reference(BaseModel):
    n: int = Field(description="The number the prompt cites it by, [n].")
    chunk_id: str = Field(description="The chunk quoted; trace_chunk gives its full text and place.")
    document: str
    section_path: list[str] = Field(description="The sections above the chunk, outermost first.")
    index: int | None = Field(default=None, description="The chunk's place in its document (0 first), as the prompt's "
                                                        "reference line names it.")


class PromptResult(BaseModel):
    mode: str
    question: str | None = Field(default=None, description="The question the prompt asks.")
    object_id: str | None = None
    tokens: int = Field(description="The prompt's tokens (cl100k_base).")
    total_tokens: int = Field(description="All prompt tokens spent building it (global search adds its map calls).")
    prompt: str = Field(description="The prompt: the question, the quoted evidence, the numbered references.")
    references: list[Reference]
    concepts: list[str] | None = Field(default=None, description="Tripartite: the concepts the prompt is built on.")
    note: str | None = Field(default=None, description="What the prompt lacks and why (a budget too small for any "
                                                       "extract, documents not analysed yet), when anything.")
    answer: str | None = Field(default=None, description="The LLM's answer, where one was asked for.")
    material: str = Field(default="", exclude=True)  # the documents' text the prompt brings in (a coverage judge reads it)
    _details: dict = PrivateAttr(default_factory=dict)

    @classmethod
    def of(cls, built: dict, mode: str, material: str = "", shown: dict | None = None, **about: Any) -> "PromptResult":
        """A builder's dict as the result; `shown` is its own form (default: the dict itself)."""
        references = [Reference(n=r["n"], chunk_id=r["chunk_id"], document=r.get("document") or "",
                                section_path=list(r.get("section_path") or []), index=r.get("index")) for r in built.get("references", [])]
        concepts = [c["name"] if isinstance(c, dict) else str(c) for c in built["concepts"]] \
            if mode == "tripartite" and isinstance(built.get("concepts"), list) else None
        result = cls(mode=mode, question=about.get("question", built.get("question")),
                     object_id=about.get("object_id", built.get("object_id")), tokens=built["tokens"],
                     total_tokens=built.get("total_tokens", built["tokens"]), prompt=built["prompt"],
                     references=references, concepts=concepts, note=built.get("note") or None,
                     material=material or built.get("material", ""))
        result._details = {k: v for k, v in (shown if shown is not None else built).items() if k != "material"}
        return result

    def details(self) -> dict:
        """The builder's own form (what `--format json` prints), with a note added since and the
        answer where there is one."""
        shown = dict(self._details)
        if self.note or "note" in shown:
            shown["note"] = self.note or ""
        if self.answer is not None:
            shown["answer"] = self.answer
        return shown

    def cited(self) -> list[str]:
        """The chunks the prompt cites."""
        return [r.chunk_id for r in self.references]
