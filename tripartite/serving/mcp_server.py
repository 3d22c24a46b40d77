"""`tripartite mcp`: the prompt builders as a Model Context Protocol server (the official SDK's
MCPServer), over stdio or streamable HTTP: the tools (mcp_tools.py: titles, annotations, the
prompt as text and its JSON as structured content), the prompts and resources (mcp_context.py),
and arguments outside the schema as a tool error of one line. Sync tools run in the SDK's
worker threads, so calls are served concurrently; the Neo4j driver is shared and thread-safe, and objects are added one at a time.
Over HTTP the server binds to 127.0.0.1 unless told otherwise, and then requires a bearer
token from TRIPARTITE_MCP_TOKEN."""
from __future__ import annotations

import hmac
import ipaddress
from typing import Any

from tripartite.infra.config import Settings
from tripartite.infra.errors import TripartiteError
from tripartite.serving.mcp_context import add_prompts, add_resources, listed_resources
from tripartite.serving.mcp_tools import add_tools
from tripartite.serving.tools import KnowledgeTools

TOKEN_VARIABLE = "TRIPARTITE_MCP_TOKEN"
INSTRUCTIONS = """Prompts grounded in the documents of a Tripartite-GraphRAG knowledge graph (Neo4j): each
prompt quotes source text with numbered references (document > section) you can cite.
- search: a free-text question; mode hybrid (default) suits most questions, global whole-corpus ones.
- object_prompt: the prompt for a stored object (a patient note, a fault report); list_objects gives ids.
- trace_chunk: where a referenced chunk sits, with its full text.
- list_ontologies, find_concepts, walk_concepts: what the ontologies hold; find a concept by a code, a
  name or a synonym, then walk to broader or narrower ones.
Prompts: cross_examine (an object), answer_from_documents (a question). Resources: tripartite://objects,
tripartite://ontologies, tripartite://documents and each object's text and document's chunks."""


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

        async def list_resources(self):
            """The fixed resources, then every stored object and document by name."""
            from anyio import to_thread

            return await super().list_resources() + await to_thread.run_sync(listed_resources, tools)

    server = OneLineServer(name="tripartite-graphrag", version=tripartite.__version__, title="Tripartite-GraphRAG",
                           instructions=INSTRUCTIONS, **auth)
    add_tools(server, tools, allow_writes)
    add_prompts(server, tools)
    add_resources(server, tools)
    return server, tools


def require_token_beyond_loopback(host: str, token: str | None, variable: str = TOKEN_VARIABLE,
                                  sent: str = "that clients send as a bearer token") -> None:
    """HTTP beyond this machine only with a token (`variable` names where it is set, `sent` how
    clients send it; the explanation page says its own)."""
    if not is_loopback(host) and not token:
        raise TripartiteError(f"serving on {host} reaches beyond this machine; set {variable} to a secret {sent}, "
                              "or bind to 127.0.0.1")


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
