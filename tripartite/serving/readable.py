"""The text content of the MCP tools' results, what a chat client shows and a model reads (the
structured content keeps the JSON): a prompt exactly as an LLM receives it, with its numbered
references, and its note apart; every other result as a few short lines."""
from __future__ import annotations

from tripartite.search.result import PromptResult
from tripartite.serving.models import Added, Concepts, Objects, Ontologies, Trace, Walk


def prompt_text(result: PromptResult) -> list[str]:
    return [result.prompt] + ([f"Note: {result.note}"] if result.note else [])


def trace_text(trace: Trace) -> list[str]:
    sections = trace.sections[1:] if trace.sections[:1] == [trace.document] else trace.sections
    where = " > ".join([trace.document, *sections])
    size = f", {trace.tokens} tokens" if trace.tokens is not None else ""
    return [f"{where}\n(chunk {trace.chunk_id}, number {trace.index} of document {trace.document_id}{size})\n\n"
            f"{trace.text}"]


def objects_text(found: Objects) -> list[str]:
    if not found.objects:
        return ["No objects are stored."]
    return ["\n".join(f"{o.id} ({o.kind or 'object'}): {o.title or o.id}; {o.concepts} concepts"
                      + (f"; analysed by {o.analysed_by}" if o.analysed_by else "; not analysed")
                      for o in found.objects)]


def ontologies_text(found: Ontologies) -> list[str]:
    if not found.ontologies:
        return ["No ontology is loaded."]
    return ["\n".join(f"{o.id}" + (f" (version {o.version})" if o.version else "") + f": {o.classes} classes, "
                      f"{o.concepts} concepts" + (f"; {o.description}" if o.description else "")
                      for o in found.ontologies)]


def _ids(named) -> str:
    return ", ".join(f"{n.name} ({n.id})" for n in named)


def concepts_text(found: Concepts) -> list[str]:
    if not found.concepts:
        return [f"No concept has the code, name or synonym {found.text!r}; list_ontologies shows what is loaded."]
    lines = []
    for c in found.concepts:
        lines.append(f"{c.name} ({c.id}; {c.ontology}" + (f", {c.concept_class}" if c.concept_class else "")
                     + f"): matched by {c.matched}")
        codes = [code for code in (c.source, c.notation) if code] + c.xrefs
        for label, values in (("codes", ", ".join(codes)), ("synonyms", ", ".join(c.synonyms)),
                              ("broader", _ids(c.broader)), ("narrower", _ids(c.narrower))):
            if values:
                more = c.narrower_count - len(c.narrower) if label == "narrower" else 0
                lines.append(f"  {label}: {values}" + (f" and {more} more (walk_concepts)" if more else ""))
    return ["\n".join(lines)]


def walk_text(walked: Walk) -> list[str]:
    start = walked.concept
    head = f"{start.name} ({start.id}), {walked.direction}, up to {walked.depth} step(s):"
    if not walked.concepts:
        return [f"{head} none."]
    lines = [head] + [f"  {'up' if c.direction == 'broader' else 'down'} {c.steps}: {c.name} ({c.id})"
                      f"{'' if c.steps == 1 else f', via {c.reached_from}'}; {c.broader} above, {c.narrower} below"
                      for c in walked.concepts]
    if walked.truncated:
        lines.append("  ... more: raise limit, or walk on from one of these")
    return ["\n".join(lines)]


def added_text(added: Added) -> list[str]:
    calls = "no LLM call" if added.llm_calls == 0 else f"{added.llm_calls} LLM call(s)"
    head = (f"{added.status} {added.object_id}: {len(added.concepts)} concepts ({', '.join(added.concepts)}); "
            f"analysed by {added.analysed_by}, {calls}" + (f". Note: {added.note}" if added.note else ""))
    return [head, added.prompt]
