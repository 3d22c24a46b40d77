"""The MCP server's prompts and resources, what an agent host offers its user to put before a
model: the prompts `cross_examine` (an object's prompt) and `answer_from_documents` (a
question's), each the built prompt as one user message; the resources tripartite://objects,
tripartite://ontologies and tripartite://documents (JSON lists), and one object's text or one
document's chunks in reading order by template, every stored object and document also listed
by name. A failure is one line, its hints said in tools (serving/hints.py)."""
from __future__ import annotations

import json
from typing import Annotated, Literal

from pydantic import Field

from tripartite.infra.errors import TripartiteError
from tripartite.search.constants import MODES as OBJECT_MODES
from tripartite.search.constants import QUESTION_MODES
from tripartite.serving.hints import one_line
from tripartite.serving.tools import KnowledgeTools

LISTED = 100  # objects and documents listed one by one as resources (the templates reach every one)


def add_prompts(server, tools: KnowledgeTools) -> None:
    from mcp.server.mcpserver.prompts.base import UserMessage
    from mcp.shared.exceptions import MCPError
    from mcp_types import INVALID_PARAMS

    def built(work, *args) -> list:
        try:
            return [UserMessage(work(*args).prompt)]
        except TripartiteError as exc:
            raise MCPError(INVALID_PARAMS, one_line(exc)) from None

    @server.prompt(title="Cross-examine an object", description=(
        "The object's question, its text and the documents' evidence with numbered references, as one user "
        "message: the prompt object_prompt builds."))
    def cross_examine(object_id: Annotated[str, Field(description="A stored object's id (list_objects).")],
                      mode: Annotated[Literal[OBJECT_MODES], Field(description="tripartite (default), rag, local or "
                                                                                "global")] = "tripartite") -> list:
        return built(tools.object_prompt, object_id, mode)

    @server.prompt(title="Answer a question from the documents", description=(
        "The question and the documents' passages that answer it, with numbered references, as one user "
        "message: the prompt search builds."))
    def answer_from_documents(question: Annotated[str, Field(description="The question, in any language.")],
                              mode: Annotated[Literal[QUESTION_MODES], Field(description=(
                                  "hybrid (default), rag, tripartite, local or global"))] = "hybrid") -> list:
        return built(tools.search, question, mode)


def add_resources(server, tools: KnowledgeTools) -> None:
    from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError

    def read(work, *args):
        try:
            return work(*args)
        except TripartiteError as exc:
            missing = str(exc).startswith("no ")
            raise (ResourceNotFoundError if missing else ResourceError)(one_line(exc)) from None

    @server.resource("tripartite://objects", name="objects", title="Stored objects", mime_type="application/json")
    def objects() -> str:
        """The stored objects: id, kind, title, how many concepts each concerns, who analysed it."""
        return json.dumps(read(tools.list_objects)["objects"], ensure_ascii=False, indent=1)

    @server.resource("tripartite://objects/{object_id}", name="object", title="An object's text",
                     mime_type="text/plain")
    def one_object(object_id: str) -> str:
        """One stored object's text, as its prompts quote it."""
        return read(tools.object_text, object_id)["text"]

    @server.resource("tripartite://ontologies", name="ontologies", title="Loaded ontologies",
                     mime_type="application/json")
    def ontologies() -> str:
        """The loaded ontologies: id, version, description, number of classes and concepts."""
        return json.dumps(read(tools.list_ontologies)["ontologies"], ensure_ascii=False, indent=1)

    @server.resource("tripartite://documents", name="documents", title="Ingested documents",
                     mime_type="application/json")
    def documents() -> str:
        """The ingested documents: id, title, source path, number of sections and chunks."""
        return json.dumps(read(tools.list_documents), ensure_ascii=False, indent=1)

    @server.resource("tripartite://documents/{document_id}", name="document", title="A document's chunks",
                     mime_type="text/markdown")
    def one_document(document_id: str) -> str:
        """One document's chunks in reading order (the first 200), under section path and chunk id."""
        found = read(tools.document, document_id)
        parts = [f"# {found['title'] or found['id']}"]
        for chunk in found["chunks"]:
            where = " > ".join(chunk["sections"]) or found["title"] or found["id"]
            parts.append(f"## {where} (chunk {chunk['chunk_id']})\n\n{chunk['text']}")
        if (found["chunk_count"] or 0) > len(found["chunks"]):
            parts.append(f"(the first {len(found['chunks'])} of {found['chunk_count']} chunks; trace_chunk gives any "
                         "other chunk a reference names)")
        return "\n\n".join(parts)


def listed_resources(tools: KnowledgeTools) -> list:
    """Every stored object and document (the first 100 of each) as a resource of its own, so a
    host that shows only listed resources offers them; none while the database is away."""
    from mcp_types import Resource

    try:
        objects = tools.list_objects()["objects"][:LISTED]
        documents = tools.list_documents()[:LISTED]
    except TripartiteError:
        return []
    return ([Resource(uri=f"tripartite://objects/{o['id']}", name=f"object {o['id']}", title=o["title"] or o["id"],
                      description=f"The text of {o['kind'] or 'object'} {o['id']}.", mime_type="text/plain")
             for o in objects]
            + [Resource(uri=f"tripartite://documents/{d['id']}", name=f"document {d['id']}", title=d["title"] or d["id"],
                        description=f"The {d['chunks']} chunks of {d['title'] or d['id']} in reading order.",
                        mime_type="text/markdown") for d in documents])
