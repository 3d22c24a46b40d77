"""Secrets out of every text the project prints, stores or caches.

A server may echo what it was sent: an error body that repeats the Authorization header, a
proxy's page that quotes the request URL with its userinfo. Whatever comes back from outside
passes through `redact` before it reaches a message, the graph or the answer cache: the
secrets this process was configured with (registered when the settings are read) are
replaced wherever they appear, and so is anything that reads as a credential (a bearer
token, an OpenAI-style key, userinfo in a URL, an api_key=... pair). `bounded` also cuts a
text to a length fit to store, after redacting, so a cut never leaves half a key behind.
"""
from __future__ import annotations

import re
import threading

MASK = "***"
STORED_ERROR_CHARS = 300   # an error text kept on a chunk or object (Chunk.analysis_error, ...)
_SHORTEST = 4              # shorter "secrets" (an empty or toy password) would mask ordinary words

_known: set[str] = set()
_lock = threading.Lock()

_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.\-]*://)(?P<userinfo>[^/@\s'\"]*@)")
_CREDENTIALS = re.compile(
    r"(?i)(?P<keep>\b(?:bearer|basic)\s+)[A-Za-z0-9._~+/=\-]{6,}"             # Authorization: Bearer <token>
    r"|(?P<keep2>\b(?:x-)?(?:api[_-]?key|access[_-]?token|password|passwd|client[_-]?secret)\b[\"']?\s*[:=]\s*[\"']?)"
    r"[^\s\"'&,;}]{4,}"                                                      # api_key=..., "password": "..."
    r"|\b(?:sk|rk|pk)-[A-Za-z0-9_\-]{8,}")                                   # OpenAI-style keys


def register(*secrets: str | None) -> None:
    """Secrets of this process's configuration (API keys, passwords): never printed, stored or cached."""
    with _lock:
        _known.update(s for s in secrets if s and len(s) >= _SHORTEST)


def mask_userinfo(text: str) -> str:
    """User and password written into any URL in the text (bolt://neo4j:secret@host) as ***."""
    return _USERINFO.sub(lambda m: f"{m['scheme']}{MASK}@", text or "")


def redact(text: str) -> str:
    """The text with every registered secret, every URL's userinfo and anything shaped like a
    credential replaced by ***."""
    if not text:
        return text or ""
    with _lock:
        known = sorted(_known, key=len, reverse=True)  # a secret inside a longer one: the longer first
    for secret in known:
        if secret in text:
            text = text.replace(secret, MASK)
    text = mask_userinfo(text)
    return _CREDENTIALS.sub(lambda m: (m["keep"] or m["keep2"] or "") + MASK, text)


def bounded(text: str, limit: int = STORED_ERROR_CHARS) -> str:
    """A redacted text of at most `limit` characters (an ellipsis marks a cut)."""
    text = redact(" ".join((text or "").split()))
    return text if len(text) <= limit else text[:limit - 1] + "…"
