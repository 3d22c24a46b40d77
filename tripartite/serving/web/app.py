"""The web page's server: Starlette on uvicorn (what the MCP server runs on), GET only, over
the MCP server's tools (serving/tools.py) and explain.py. Loopback by default; bound anywhere
else it requires a bearer token (TRIPARTITE_UI_TOKEN), sent as an Authorization header or once
as ?token=, which a cookie then keeps for the browser. Every failure is one line on the page."""
from __future__ import annotations

import hmac
import logging
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import quote, urlencode

from tripartite.infra.config import Settings
from tripartite.infra.errors import Neo4jUnavailable, TripartiteError
from tripartite.infra.secrets import redact
from tripartite.search.constants import QUESTION_MODES
from tripartite.serving.tools import KnowledgeTools
from tripartite.serving.web import pages
from tripartite.serving.web.explain import explain_object
from tripartite.serving.web.links import BrowserLinks

logger = logging.getLogger(__name__)
TOKEN_VARIABLE = "TRIPARTITE_UI_TOKEN"
COOKIE = "tripartite_ui"
STATIC = Path(__file__).resolve().parent / "static"
DOCUMENT_CHUNKS = 5_000  # a document page shows its chunks up to this many (cited ones link into it)
COMPARED = ("tripartite", "hybrid", *(m for m in QUESTION_MODES if m not in ("tripartite", "hybrid")))  # the five, side by side


def _one_line(exc: Exception) -> str:
    """The error's first line, secrets masked. The person at the page runs the server, so the
    commands it names stay commands (the MCP server words them for agents instead)."""
    lines = redact(str(exc)).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def build_app(settings: Settings, token: str | None = None, browser: str | None = None):
    """The ASGI app and the tools it holds (close them when done)."""
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    tools = KnowledgeTools(settings)
    links = BrowserLinks(settings, browser)

    async def answer(render, status_on_error: int = 409):
        try:
            return HTMLResponse(await run_in_threadpool(render))
        except Neo4jUnavailable as exc:
            return HTMLResponse(pages.error_page(_one_line(exc)), status_code=503)
        except TripartiteError as exc:
            return HTMLResponse(pages.error_page(_one_line(exc)), status_code=status_on_error)
        except Exception as exc:  # a bug or a server error: still one line, and the server lives on
            logger.exception("the page failed")
            return HTMLResponse(pages.error_page(f"the page failed ({type(exc).__name__}: {_one_line(exc)}); "
                                                 "the server's log has the details"), status_code=500)

    async def index(request):
        return await answer(lambda: pages.index_page(tools.list_objects()["objects"], tools.list_documents(), links), 503)

    async def object_view(request):
        object_id = request.path_params["object_id"]
        return await answer(lambda: pages.object_page(explain_object(tools, object_id), links))

    async def object_json(request):
        object_id = request.path_params["object_id"]
        try:
            view = await run_in_threadpool(explain_object, tools, object_id)
        except TripartiteError as exc:
            return JSONResponse({"error": _one_line(exc)}, status_code=409)
        shown = {k: v for k, v in view.items() if k not in ("prompt", "contexts")}
        shown["concepts"] = [{**c, "bars": [vars(b) for b in c["bars"]]} for c in view["concepts"]]
        return JSONResponse(shown)

    async def document_view(request):
        return await answer(lambda: pages.document_page(tools.document(request.path_params["document_id"], limit=DOCUMENT_CHUNKS), links), 404)

    async def chunk_view(request):
        """A cited chunk: its place in its document's page."""
        try:
            found = await run_in_threadpool(tools.trace, request.path_params["chunk_id"])
        except TripartiteError as exc:
            return HTMLResponse(pages.error_page(_one_line(exc)), status_code=404)
        return RedirectResponse(f"/documents/{quote(found['document_id'], safe='')}#chunk-{found['chunk_id']}",
                                status_code=303)

    async def ask(request):
        question = request.query_params.get("q", "").strip()
        if not question:
            return RedirectResponse("/", status_code=303)
        return await answer(lambda: pages.compare_page(question, compare(tools, question)), 400)

    routes = [Route("/", index), Route("/objects/{object_id:path}.json", object_json),
              Route("/objects/{object_id:path}", object_view), Route("/documents/{document_id:path}", document_view),
              Route("/chunks/{chunk_id:path}", chunk_view),
              Route("/ask", ask), Mount("/static", StaticFiles(directory=STATIC), name="static")]
    app = Starlette(routes=routes)
    if token:
        app.add_middleware(_bearer(token, PlainTextResponse, RedirectResponse))
    return app, tools


def compare(tools: KnowledgeTools, question: str) -> list[tuple[str, object]]:
    """The five builders' prompts for one question, built side by side; a builder that cannot
    answer gives its one line instead."""
    def build(mode: str):
        try:
            return tools.search(question, mode)
        except TripartiteError as exc:
            return _one_line(exc)
    with ThreadPoolExecutor(max_workers=len(COMPARED)) as pool:
        return list(zip(COMPARED, pool.map(build, COMPARED)))


def _bearer(token: str, text_response, redirect):
    """A middleware admitting requests that carry the token (header, cookie, or ?token= once)."""
    from starlette.middleware.base import BaseHTTPMiddleware

    def matches(given: str | None) -> bool:
        return bool(given) and hmac.compare_digest(given.encode(), token.encode())

    class Bearer(BaseHTTPMiddleware):
        async def dispatch(self, request, call_next):
            header = request.headers.get("authorization", "")
            if matches(header.removeprefix("Bearer ").strip() if header.startswith("Bearer ") else None) \
                    or matches(request.cookies.get(COOKIE)):
                return await call_next(request)
            if matches(request.query_params.get("token")):
                rest = {k: v for k, v in request.query_params.items() if k != "token"}
                response = redirect(request.url.path + ("?" + urlencode(rest) if rest else ""), status_code=303)
                response.set_cookie(COOKIE, token, httponly=True, samesite="strict")
                return response
            return text_response(f"this page needs the token from {TOKEN_VARIABLE}: open it once with ?token=..., "
                                 "or send it as a bearer token", status_code=401,
                                 headers={"WWW-Authenticate": 'Bearer realm="tripartite-ui"'})
    return Bearer


def is_loopback(host: str) -> bool:
    from tripartite.serving.mcp_server import is_loopback as loopback

    return loopback(host)


def serve(settings: Settings, host: str, port: int, token: str | None = None, browser: str | None = None,
          ready=None) -> None:
    """Serve the page at http://host:port/ until interrupted; `ready(url)` once it listens."""
    import uvicorn

    if not is_loopback(host) and not token:
        raise TripartiteError(f"serving on {host} reaches beyond this machine; set {TOKEN_VARIABLE} to a secret "
                              "that readers send as a bearer token (or open the page once with ?token=...), "
                              "or bind to 127.0.0.1")
    app, tools = build_app(settings, token, browser)
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
