"""Who may read the page. On loopback (the default) anyone on this machine, and only through a
loopback host name, so a web page elsewhere cannot read it by rebinding its own name to
127.0.0.1; bound anywhere else, only who holds the token (TRIPARTITE_UI_TOKEN), sent as a
bearer token or once as ?token=, which an HttpOnly cookie then keeps for the browser."""
from __future__ import annotations

import hmac
from urllib.parse import parse_qsl, urlencode

from tripartite.serving.mcp_server import require_token_beyond_loopback as require_token

TOKEN_VARIABLE = "TRIPARTITE_UI_TOKEN"
COOKIE = "tripartite_ui"
LOOPBACK_NAMES = ["127.0.0.1", "localhost", "::1", "[::1]"]


def require_token_beyond_loopback(host: str, token: str | None) -> None:
    """The MCP server's rule, with the page's variable and how readers send the token."""
    require_token(host, token, TOKEN_VARIABLE,
                  "(readers open the page once with ?token=..., or send it as a bearer token)")


def guard(app, token: str | None):
    """The app behind the check that fits: a token when one is set, loopback names otherwise."""
    if not token:
        from starlette.middleware.trustedhost import TrustedHostMiddleware

        return TrustedHostMiddleware(app, allowed_hosts=LOOPBACK_NAMES)
    return TokenGate(app, token)


class TokenGate:
    """ASGI middleware: requests carrying the token pass; ?token= sets the cookie and redirects
    to the same path without it; everything else is 401 with WWW-Authenticate."""

    def __init__(self, app, token: str):
        self.app = app
        self.token = token

    def _matches(self, given: str | None) -> bool:
        return bool(given) and hmac.compare_digest(given.encode(), self.token.encode())

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        from starlette.requests import Request
        from starlette.responses import PlainTextResponse, RedirectResponse

        request = Request(scope)
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        if (scheme.lower() == "bearer" and self._matches(given.strip())) or self._matches(request.cookies.get(COOKIE)):
            return await self.app(scope, receive, send)
        if self._matches(request.query_params.get("token")):
            # The path as sent (an id may hold an escaped slash), never another host's (//host/...).
            path = "/" + scope.get("raw_path", scope["path"].encode()).decode("latin-1").lstrip("/")
            rest = [(k, v) for k, v in parse_qsl(scope.get("query_string", b"").decode("latin-1"),
                                                 keep_blank_values=True) if k != "token"]
            response = RedirectResponse(path + ("?" + urlencode(rest) if rest else ""), status_code=303)
            response.set_cookie(COOKIE, self.token, httponly=True, samesite="strict")
            return await response(scope, receive, send)
        response = PlainTextResponse(f"this page needs the token from {TOKEN_VARIABLE}: open it once with ?token=..., "
                                     "or send it as a bearer token", status_code=401,
                                     headers={"WWW-Authenticate": 'Bearer realm="tripartite-ui"'})
        return await response(scope, receive, send)
