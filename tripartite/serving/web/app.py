"""The web page's server: Starlette on uvicorn (what the MCP server runs on), GET only, over
the MCP server's tools (serving/tools.py) and explain.py; who may read it is access.py's.
Every failure is one line on the page: 404 for what does not exist, 409 for what has to be
built first (the line says how), 503 for a database that cannot be reached."""
from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import quote

from tripartite.infra.config import Settings
from tripartite.infra.errors import Neo4jUnavailable, TripartiteError
from tripartite.infra.secrets import redact
from tripartite.search.constants import QUESTION_MODES
from tripartite.serving.tools import KnowledgeTools
from tripartite.serving.web import pages
from tripartite.serving.web.access import guard, require_token_beyond_loopback
from tripartite.serving.web.explain import UnknownObject, explain_object
from tripartite.serving.web.links import BrowserLinks

logger = logging.getLogger(__name__)
STATIC = Path(__file__).resolve().parent / "static"
DOCUMENT_CHUNKS = 5_000  # a document page shows its chunks up to this many (cited ones link into it)
COMPARED = ("tripartite", "hybrid", *(m for m in QUESTION_MODES if m not in ("tripartite", "hybrid")))  # the five


class NotFound(TripartiteError):
    """What the address names does not exist."""


def _one_line(exc: Exception) -> str:
    """The error's first line, secrets masked. The person at the page runs the server, so the
    commands it names stay commands (the MCP server words them for agents instead)."""
    lines = redact(str(exc)).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def _status(exc: Exception) -> int:
    if isinstance(exc, Neo4jUnavailable):
        return 503
    if isinstance(exc, (UnknownObject, NotFound)):
        return 404
    return 409 if isinstance(exc, TripartiteError) else 500


def build_app(settings: Settings, token: str | None = None, browser: str | None = None, offline: bool = False):
    """The ASGI app and the tools it holds (close them when done); `offline`: the question box's
    builders never call the configured LLM."""
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    tools = KnowledgeTools(settings, offline=offline)
    links = BrowserLinks(settings, browser)

    async def run(work, as_json: bool = False):
        """`work()` in a worker thread; a failure as one line (HTML or JSON) with its status."""
        try:
            return await run_in_threadpool(work)
        except Exception as exc:
            line = _one_line(exc)
            if not isinstance(exc, TripartiteError):  # a bug or a server error: the server lives on
                logger.exception("the page failed")
                line = f"the page failed ({type(exc).__name__}: {line}); the server's log has the details"
            body = JSONResponse({"error": line}, status_code=_status(exc)) if as_json else \
                HTMLResponse(pages.error_page(line), status_code=_status(exc))
            return body

    async def html(render):
        found = await run(render)
        return HTMLResponse(found) if isinstance(found, str) else found

    async def index(request):
        return await html(lambda: pages.index_page(tools.list_objects()["objects"], tools.list_documents(), links))

    async def object_view(request):
        object_id = request.path_params["object_id"]
        return await html(lambda: pages.object_page(explain_object(tools, object_id), links))

    async def object_api(request):
        found = await run(lambda: explain_object(tools, request.path_params["object_id"]), as_json=True)
        if not isinstance(found, dict):
            return found
        shown = {k: v for k, v in found.items() if k not in ("prompt", "contexts")}
        shown["concepts"] = [{**c, "bars": [vars(b) for b in c["bars"]]} for c in found["concepts"]]
        return JSONResponse(shown)

    def document(document_id: str) -> dict:
        try:
            return tools.document(document_id, limit=DOCUMENT_CHUNKS)
        except Neo4jUnavailable:
            raise
        except TripartiteError:
            raise NotFound(f"no document with id {document_id!r}; the index lists the documents") from None

    async def document_view(request):
        return await html(lambda: pages.document_page(document(request.path_params["document_id"]), links))

    def chunk_place(chunk_id: str) -> str:
        try:
            found = tools.trace(chunk_id)
        except Neo4jUnavailable:
            raise
        except TripartiteError:
            raise NotFound(f"no chunk with id {chunk_id!r}") from None
        return f"/documents/{quote(found['document_id'], safe='')}#chunk-{quote(chunk_id, safe=':')}"

    async def chunk_view(request):
        """A cited chunk: its place in its document's page."""
        found = await run(lambda: chunk_place(request.path_params["chunk_id"]))
        return RedirectResponse(found, status_code=303) if isinstance(found, str) else found

    async def ask(request):
        question = request.query_params.get("q", "").strip()
        if not question:
            return RedirectResponse("/", status_code=303)
        return await html(lambda: pages.compare_page(question, compare(tools, question), links))

    routes = [Route("/", index), Route("/api/objects/{object_id:path}", object_api),
              Route("/objects/{object_id:path}", object_view), Route("/documents/{document_id:path}", document_view),
              Route("/chunks/{chunk_id:path}", chunk_view), Route("/ask", ask),
              Mount("/static", StaticFiles(directory=STATIC), name="static")]
    return guard(Starlette(routes=routes), token), tools


def compare(tools: KnowledgeTools, question: str) -> list[tuple[str, object]]:
    """The five builders' prompts for one question, built side by side; a builder that cannot
    answer gives its one line instead. A database that cannot be reached is one line for all."""
    tools.list_ontologies()  # raises Neo4jUnavailable once, rather than five times below

    def build(mode: str):
        try:
            return tools.search(question, mode)
        except Neo4jUnavailable:
            raise
        except TripartiteError as exc:
            return _one_line(exc)
    with ThreadPoolExecutor(max_workers=len(COMPARED)) as pool:
        return list(zip(COMPARED, pool.map(build, COMPARED)))


def serve(settings: Settings, host: str, port: int, token: str | None = None, browser: str | None = None,
          ready=None, offline: bool = False) -> None:
    """Serve the page at http://host:port/ until interrupted; `ready(url)` once it listens."""
    import uvicorn

    require_token_beyond_loopback(host, token)
    app, tools = build_app(settings, token, browser, offline)
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False))
    if ready is not None:
        started = server.startup

        async def startup(sockets=None):
            await started(sockets)
            if server.started:
                ready(f"http://{host if ':' not in host else f'[{host}]'}:{port}/")
        server.startup = startup
    try:
        server.run()
    finally:
        tools.close()

