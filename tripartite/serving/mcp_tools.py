"""The MCP server's tools: serving/tools.py's functions, each with a title, a description, typed
parameters (the input schema a model reads), an output schema (serving/models.py) and
annotations that say what it does: all but add_object only read; they reach beyond the
database (openWorldHint) only where a configured LLM or embedding endpoint may be called. A
result is its JSON as structured content and readable text (serving/readable.py): a prompt
exactly as an LLM receives it, with its numbered references. A failure is a tool error of one
line whose hints name tools and arguments (serving/hints.py)."""
from __future__ import annotations

import inspect
import logging
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field

from tripartite.infra.config import Settings
from tripartite.infra.errors import TripartiteError
from tripartite.search.constants import MODES as OBJECT_MODES
from tripartite.search.constants import QUESTION_MODES
from tripartite.search.result import PromptResult
from tripartite.serving import readable
from tripartite.serving.hints import for_agents, one_line
from tripartite.serving.models import Added, Concepts, Objects, Ontologies, Trace, Walk
from tripartite.serving.tools import KnowledgeTools

Mode = Literal[OBJECT_MODES]  # the schema's enum: one list, search/constants.py
SearchMode = Literal[QUESTION_MODES]
Direction = Literal["broader", "narrower", "both"]


def _not_a_flag(value: Any) -> Any:
    # JSON's true is an int to pydantic's lax mode (1 token); a budget is never a yes/no
    if isinstance(value, bool):
        raise ValueError("a budget is a number of tokens, not true or false")
    return value


# the bounds sit on the number, not on the optional: pydantic cannot apply ge to null (a raw
# TypeError), and this way the schema shows them as JSON Schema's minimum and maximum
Budget = Annotated[Annotated[int, Field(ge=100, le=50_000)] | None, BeforeValidator(_not_a_flag),
                   Field(description="The prompt's token budget (cl100k_base); null or absent: the mode's own.")]


def reaches_out(settings: Settings) -> bool:
    """Whether building a prompt may call something beyond the database: a configured LLM
    (keywords, map calls, reading a question or an object) or an embedding endpoint."""
    return settings.llm.configured or settings.embeddings.provider == "openai"


def add_tools(server, tools: KnowledgeTools, allow_writes: bool) -> None:
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp_types import CallToolResult, TextContent, ToolAnnotations

    open_world = reaches_out(tools.settings)

    def add(fn, model, title: str, read_only: bool = True, destructive: bool = False, world: bool = False) -> None:
        fn.__annotations__["return"] = Annotated[CallToolResult, model]  # the output schema: the model's
        server.add_tool(fn, title=title, description=inspect.cleandoc(fn.__doc__), annotations=ToolAnnotations(
            title=title, read_only_hint=read_only, destructive_hint=destructive, idempotent_hint=True,
            open_world_hint=world))

    def call(model, render, work, *args) -> CallToolResult:
        try:
            result = work(*args)
            result = result if isinstance(result, model) else model(**result)
        except TripartiteError as exc:
            raise ToolError(one_line(exc)) from None
        except Exception as exc:  # noqa: BLE001 - a client gets one line, never a traceback
            import traceback

            from tripartite.infra.secrets import redact

            logging.getLogger("tripartite.mcp").error("tool failed: %s", redact("".join(traceback.format_exception(exc))))
            raise ToolError(f"internal error ({one_line(exc)}); see the server's log") from None
        if getattr(result, "note", None):
            result.note = for_agents(result.note)
        return CallToolResult(content=[TextContent(type="text", text=text) for text in render(result)],
                              structured_content=result.model_dump(mode="json"))

    def search(question: Annotated[str, Field(min_length=1, description="The question, in any language.")],
               mode: Annotated[SearchMode, Field(description=(
                   "hybrid: sentences of the documents, entities, relations and community summaries ranked on one "
                   "scale (default); rag: the chunks closest to the question; tripartite: the question read "
                   "against the ontology's concepts; local: the triplet graph around the question's keywords; "
                   "global: community summaries, for questions about the whole corpus."))] = "hybrid",
               max_tokens: Budget = None):
        """Build a prompt that answers a free-text question from the documents: quoted source text
        with numbered references [n] (document > section). The text is the prompt itself; the
        structured result adds mode, question, tokens and references [{n, chunk_id, document,
        section_path}]."""
        return call(PromptResult, readable.prompt_text, tools.search, question, mode, max_tokens)
    add(search, PromptResult, "Search the documents", world=open_world)

    def object_prompt(object_id: Annotated[str, Field(min_length=1, description="An object's id (see list_objects).")],
                      mode: Annotated[Mode, Field(description=(
                          "tripartite: per concept of the object, the selected source extracts (default); rag: the "
                          "chunks closest to the object's text; local or global search over the triplet graph."))]
                      = "tripartite",
                      max_tokens: Budget = None):
        """Build the prompt for one stored object (a patient note, a fault report): the question
        its ontology asks, its text and the evidence with numbered references. The text is the
        prompt itself; the structured result adds mode, question, object_id, tokens, references
        (and, for tripartite, the object's concepts)."""
        return call(PromptResult, readable.prompt_text, tools.object_prompt, object_id, mode, max_tokens)
    add(object_prompt, PromptResult, "Build an object's prompt", world=open_world)

    def trace_chunk(chunk_id: Annotated[str, Field(min_length=1, description=(
            "A reference's chunk_id (in a prompt's structured result; the prompt's text names the chunk by its "
            "place in the document, which is not its id)."))]):
        """Where a chunk sits: its document, the sections above it, its position and its full text."""
        return call(Trace, readable.trace_text, tools.trace, chunk_id)
    add(trace_chunk, Trace, "Trace a chunk")

    def list_objects(kind: Annotated[str | None, Field(description="Only objects of this kind.")] = None):
        """The stored objects: id, kind, title, how many concepts they concern, who analysed them."""
        return call(Objects, readable.objects_text, tools.list_objects, kind)
    add(list_objects, Objects, "List the objects")

    def list_ontologies():
        """The loaded ontologies: id, version, description, number of classes and concepts
        (find_concepts looks into them)."""
        return call(Ontologies, readable.ontologies_text, tools.list_ontologies)
    add(list_ontologies, Ontologies, "List the ontologies")

    def find_concepts(text: Annotated[str, Field(min_length=1, description=(
                          "A code (a concept's id, a CURIE such as DOID:5844, a cross-reference such as "
                          "MESH:D009203 or just D009203), a name or a synonym, whole or in part."))],
                      ontology: Annotated[str | None, Field(description="Only this ontology (list_ontologies).")]
                      = None,
                      limit: Annotated[int, Field(ge=1, le=100, description="At most this many concepts.")] = 10):
        """Find concepts of the loaded ontologies by a code, a name or a synonym, best matches
        first: each with its id, class, what matched, its codes, synonyms and the concepts
        directly broader and narrower (walk_concepts goes further)."""
        return call(Concepts, readable.concepts_text, tools.find_concepts, text, ontology, limit)
    add(find_concepts, Concepts, "Find concepts")

    def walk_concepts(concept: Annotated[str, Field(min_length=1, description=(
                          "A concept's id (find_concepts gives it), a code or its exact name."))],
                      direction: Annotated[Direction, Field(description=(
                          "narrower: the more specific concepts below it (default); broader: the more general "
                          "ones above it; both."))] = "narrower",
                      depth: Annotated[int, Field(ge=1, le=10, description="How many steps to walk.")] = 1,
                      limit: Annotated[int, Field(ge=1, le=500, description="At most this many concepts.")] = 50):
        """Walk the ontology's hierarchy (BROADER edges) from one concept, up or down, nearest
        first: each concept reached with its steps, the concept it was reached from and how many
        concepts lie above and below it."""
        return call(Walk, readable.walk_text, tools.walk_concepts, concept, direction, depth, limit)
    add(walk_concepts, Walk, "Walk the concept hierarchy")

    if not allow_writes:  # a read-only server does not offer it at all
        return

    def add_object(object_id: Annotated[str, Field(min_length=1, max_length=120, description="The new object's id.")],
                   text: Annotated[str, Field(min_length=1, description="The object's text: one case, e.g. one report.")],
                   kind: Annotated[str, Field(min_length=1, max_length=60, description="Its kind, e.g. fault-report.")]
                   = "object"):
        """Store an object from its text, analyse it against the loaded ontologies (with the
        configured LLM, answers cached; without one, the offline extractive reader, which makes no
        LLM call) and select its evidence, so object_prompt can build its prompt. The same text
        again changes nothing; another text under an id this tool stored replaces that object's
        text and analysis; an id another object holds is not taken over (the result says which id
        it got)."""
        return call(Added, readable.added_text, tools.add_object, object_id, text, kind)
    add(add_object, Added, "Add an object", read_only=False, destructive=True, world=open_world)
