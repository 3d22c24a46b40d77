"""`tripartite mcp`: the prompt builders as a Model Context Protocol server (the official SDK's
MCPServer), over stdio or streamable HTTP. The tools are serving/tools.py's; this module gives
each a description and typed parameters (the input schema a model reads), returns the prompt
with its numbered references as structured content and as text, and turns every failure into
a tool error of one line. Sync tools run in the SDK's worker threads, so calls are served
concurrently; the Neo4j driver is shared and thread-safe, and objects are added one at a time.
Over HTTP the server binds to 127.0.0.1 unless told otherwise, and then requires a bearer
token from TRIPARTITE_MCP_TOKEN."""
from __future__ import annotations

import hmac
import ipaddress
import logging
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, Field

from tripartite.infra.config import Settings
from tripartite.infra.errors import TripartiteError
from tripartite.search.constants import MODES as OBJECT_MODES
from tripartite.search.constants import QUESTION_MODES
from tripartite.search.result import PromptResult, Reference
from tripartite.serving.tools import KnowledgeTools

TOKEN_VARIABLE = "TRIPARTITE_MCP_TOKEN"
INSTRUCTIONS = """Prompts grounded in the documents of a Tripartite-GraphRAG knowledge graph (Neo4j): each
prompt quotes source text with numbered references (document > section) you can cite.
- search: a free-text question; mode hybrid (default) suits most questions, global whole-corpus ones.
- object_prompt: the prompt for a stored object (a patient note, a fault report); list_objects gives ids.
- trace_chunk: where a referenced chunk sits, with its full text.
- list_ontologies: the concepts the graph is organised by."""

Mode = Literal[OBJECT_MODES]  # the schema's enum: one list, search/constants.py
SearchMode = Literal[QUESTION_MODES]


def _not_a_flag(value: Any) -> Any:
    # JSON's true is an int to pydantic's lax mode (1 token); a budget is never a yes/no
    if isinstance(value, bool):
        raise ValueError("a budget is a number of tokens, not true or false")
    return value


# the bounds sit on the number, not on the optional: pydantic cannot apply ge to null (a raw
# TypeError), and this way the schema shows them as JSON Schema's minimum and maximum
Budget = Annotated[Annotated[int, Field(ge=100, le=50_000)] | None, BeforeValidator(_not_a_flag),
                   Field(description="The prompt's token budget (cl100k_base); null or absent: the mode's own.")]


class Trace(BaseModel):
    chunk_id: str
    document: str
    document_id: str
    source: str | None = None
    sections: list[str]
    index: int
    tokens: int | None = None
    text: str


class ObjectRow(BaseModel):
    id: str
    kind: str | None = None
    title: str | None = None
    concepts: int = Field(description="How many concepts the object concerns.")
    analysed_by: str | None = None


class Objects(BaseModel):
    objects: list[ObjectRow]


class OntologyRow(BaseModel):
    id: str
    version: str | None = None
    description: str | None = None
    classes: int
    concepts: int


class Ontologies(BaseModel):
    ontologies: list[OntologyRow]


class Added(BaseModel):
    object_id: str = Field(description="The id it is stored under (another if the one asked for was taken).")
    status: Literal["added", "changed", "unchanged", "moved"]
    note: str | None = None
    llm_calls: int = Field(description="Calls the analysis made (0 when answered from the cache or offline).")
    tokens: int = Field(description="Its Tripartite prompt's tokens.")
    concepts: list[str] = Field(description="The concepts it concerns.")
    prompt: str = Field(description="Its Tripartite prompt, as object_prompt gives it.")
    references: list[Reference]


def first_line(exc: BaseException) -> str:
    from tripartite.infra.secrets import redact

    lines = redact(str(exc)).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def argument_errors(error) -> str:
    """A pydantic ValidationError of a tool's arguments as one line: `max_tokens: Input should be
    greater than or equal to 50; mode: Input should be 'tripartite' or 'rag'` (the rejected values
    are the caller's data and are not repeated)."""
    parts = []
    for item in error.errors():
        where = ".".join(str(part) for part in item["loc"]) or "arguments"
        parts.append(f"{where}: {' '.join(item['msg'].split())}")
    return "; ".join(dict.fromkeys(parts)) + "; see the tool's input schema"


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def build_server(settings: Settings, allow_writes: bool = False, token: str | None = None):
    """The MCPServer with its tools; with `token`, HTTP requests must carry it as a bearer token."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    import tripartite

    tools = KnowledgeTools(settings, allow_writes=allow_writes)
    auth: dict[str, Any] = {}
    if token:
        from mcp.server.auth.provider import AccessToken, TokenVerifier
        from mcp.server.auth.settings import AuthSettings

        class StaticToken(TokenVerifier):
            async def verify_token(self, given: str) -> AccessToken | None:
                if hmac.compare_digest(given.encode(), token.encode()):
                    return AccessToken(token=given, client_id="bearer", scopes=[])
                return None
        auth = {"token_verifier": StaticToken(),
                "auth": AuthSettings(issuer_url="http://localhost", resource_server_url=None)}
    from pydantic import ValidationError

    class OneLineServer(MCPServer):
        """Arguments that fail the tools' schema are one line naming each argument and what it
        must be, as every other tool error is (the SDK passes pydantic's multi-line report)."""

        async def call_tool(self, name, arguments, context=None):
            try:
                return await super().call_tool(name, arguments, context)
            except ToolError as exc:
                if not isinstance(exc.__cause__, ValidationError):
                    raise
                raise ToolError(f"Error executing tool {name}: {argument_errors(exc.__cause__)}") from exc.__cause__

    server = OneLineServer(name="tripartite-graphrag", version=tripartite.__version__, title="Tripartite-GraphRAG",
                           instructions=INSTRUCTIONS, **auth)

    def call(model, work, *args, **kwargs):
        try:
            result = work(*args, **kwargs)
            return result if isinstance(result, model) else model(**result)
        except TripartiteError as exc:
            raise ToolError(first_line(exc)) from None
        except Exception as exc:  # noqa: BLE001 - a client gets one line, never a traceback
            import traceback

            from tripartite.infra.secrets import redact

            logging.getLogger("tripartite.mcp").error("tool failed: %s", redact("".join(traceback.format_exception(exc))))
            raise ToolError(f"internal error ({first_line(exc)}); see the server's log") from None

    @server.tool()
    def search(question: Annotated[str, Field(min_length=1, description="The question, in any language.")],
               mode: Annotated[SearchMode, Field(description=(
                   "hybrid: sentences of the documents, entities, relations and community summaries ranked on one "
                   "scale (default); rag: the chunks closest to the question; tripartite: the question read "
                   "against the ontology's concepts; local: the triplet graph around the question's keywords; "
                   "global: community summaries, for questions about the whole corpus."))] = "hybrid",
               max_tokens: Budget = None) -> PromptResult:
        """Build a prompt that answers a free-text question from the documents: quoted source text
        with numbered references [n] (document > section). Returns mode, question, tokens, prompt,
        references [{n, chunk_id, document, section_path}]."""
        return call(PromptResult, tools.search, question, mode, max_tokens)

    @server.tool()
    def object_prompt(object_id: Annotated[str, Field(min_length=1, description="An object's id (see list_objects).")],
                      mode: Annotated[Mode, Field(description=(
                          "tripartite: per concept of the object, the selected source extracts (default); rag: the "
                          "chunks closest to the object's text; local or global search over the triplet graph."))]
                      = "tripartite",
                      max_tokens: Budget = None) -> PromptResult:
        """Build the prompt for one stored object (a patient note, a fault report): its text, the
        question its ontology asks, and the evidence with numbered references. Returns mode,
        object_id, tokens, prompt, references (and, for tripartite, the object's concepts)."""
        return call(PromptResult, tools.object_prompt, object_id, mode, max_tokens)

    @server.tool()
    def trace_chunk(chunk_id: Annotated[str, Field(min_length=1, description="A chunk id from a reference.")]) -> Trace:
        """Where a chunk sits: its document, the sections above it, its position and its full text."""
        return call(Trace, tools.trace, chunk_id)

    @server.tool()
    def list_objects(kind: Annotated[str | None, Field(description="Only objects of this kind.")] = None) -> Objects:
        """The stored objects: id, kind, title, how many concepts they concern, who analysed them."""
        return call(Objects, tools.list_objects, kind)

    @server.tool()
    def list_ontologies() -> Ontologies:
        """The loaded ontologies: id, version, description, number of classes and concepts."""
        return call(Ontologies, tools.list_ontologies)

    if not allow_writes:  # a read-only server does not offer it at all
        return server, tools

    @server.tool()
    def add_object(object_id: Annotated[str, Field(min_length=1, max_length=120, description="The new object's id.")],
                   text: Annotated[str, Field(min_length=1, description="The object's text: one case, e.g. one report.")],
                   kind: Annotated[str, Field(min_length=1, max_length=60, description="Its kind, e.g. fault-report.")]
                   = "object") -> Added:
        """Store an object from its text, analyse it against the loaded ontologies (answers are
        cached) and select its evidence, so object_prompt can build its prompt. The same text
        again changes nothing; an id another object holds is not taken over (the result says
        which id it got)."""
        return call(Added, tools.add_object, object_id, text, kind)

    return server, tools


def require_token_beyond_loopback(host: str, token: str | None) -> None:
    """HTTP beyond this machine only with a bearer token."""
    if not is_loopback(host) and not token:
        raise TripartiteError(f"serving on {host} reaches beyond this machine; set {TOKEN_VARIABLE} to a "
                              f"secret that clients send as a bearer token, or bind to 127.0.0.1")


def serve(settings: Settings, address: tuple[str, int] | None = None, allow_writes: bool = False,
          token: str | None = None) -> None:
    """Serve over stdio, or over streamable HTTP at (host, port), path /mcp."""
    if address is not None:
        require_token_beyond_loopback(address[0], token)
    server, tools = build_server(settings, allow_writes, token if address is not None else None)
    try:
        if address is None:
            server.run()
        else:
            server.run("streamable-http", host=address[0], port=address[1])
    finally:
        tools.close()


def parse_address(value: str) -> tuple[str, int]:
    host, _, port = value.rpartition(":")
    host = host or "127.0.0.1"
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise TripartiteError(f"--http {value!r}: give a port, or HOST:PORT (e.g. 8765 or 0.0.0.0:8765)")
    return host.strip("[]"), int(port)
