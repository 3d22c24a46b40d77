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
from typing import Any, Mapping
from urllib.parse import parse_qsl, urlsplit

MASK = "***"
STORED_ERROR_CHARS = 300   # an error text kept on a chunk or object (Chunk.analysis_error, ...)
# Shorter "secrets" would mask ordinary words wherever they appear: the placeholder keys local
# model servers take ("none", "ollama", "EMPTY", "dummy") and toy passwords. Neo4j 5 asks for 8
# characters at least, and API keys are longer; anything shaped like a credential is masked anyway.
_SHORTEST = 8

_known: set[str] = set()
_lock = threading.Lock()

_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.\-]*://)(?P<userinfo>[^/@\s'\"]*@)")
_CREDENTIALS = re.compile(
    r"(?i)(?P<keep>\b(?:bearer|basic)\s+)[A-Za-z0-9._~+/=\-]{6,}"             # Authorization: Bearer <token>
    r"|(?P<keep2>\b(?:x-)?(?:api[_-]?key|access[_-]?token|password|passwd|client[_-]?secret)\b[\"']?\s*[:=]\s*[\"']?)"
    r"[^\s\"'&,;}]{4,}"                                                      # api_key=..., "password": "..."
    r"|\b(?:sk|rk|pk)-[A-Za-z0-9_\-]{8,}")                                   # OpenAI-style keys


# A config file's key named like a secret; a URL's query parameter that carries one: api_key,
# subscription-key, access_token, sig (a signed URL's), not api-version.
SECRET_KEYS = {"password", "api_key", "apikey", "key", "token", "secret"}
_SECRET_PARAMETER = re.compile(r"(?i)(key|token|secret|password|passwd|sig|signature)$")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://")
# Where the secret of a URL in each section of the config file goes instead.
_SECRET_HOMES = {"neo4j": "the user and password in the environment (NEO4J_USER, NEO4J_PASSWORD)",
                 "llm": "the key in the environment (OPENAI_API_KEY)"}


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


def written_secret(table: Mapping[str, Any], at: tuple[str, ...] = ()) -> str | None:
    """Why a config file's table may not hold what it holds, and what to do instead, for the
    first key that is named like a secret (password, api_key) or holds a URL carrying one."""
    for key, value in table.items():
        if isinstance(value, Mapping) and (found := written_secret(value, (*at, key))):
            return found
        if key.lower() in SECRET_KEYS:
            return (f"'{'.'.join((*at, key))}' is a secret; remove it from the file and set it in the environment "
                    "(NEO4J_PASSWORD, OPENAI_API_KEY)")
        if isinstance(value, str) and (secret := url_secret(value)):
            home = _SECRET_HOMES.get(".".join(at), "it in the environment (NEO4J_PASSWORD, OPENAI_API_KEY)")
            return (f"[{'.'.join(at)}] {key} holds {secret}; write the URL without "
                    f"{'them' if secret.startswith('credentials') else 'it'} and set {home}")
    return None


def url_secret(value: str) -> str | None:
    """What of a URL is a secret, said without it: "credentials before '@'" (bolt://neo4j:pw@host,
    https://key@host) or "a key in its query (api_key)" for a parameter named like one; None for a
    URL without any, or text that is no URL."""
    if not _URL.match(value):
        return None
    rest = value.split("://", 1)[1]
    if "@" in re.split(r"[/?#]", rest, maxsplit=1)[0]:
        return "credentials before '@'"
    for name, _ in parse_qsl(rest.partition("?")[2].partition("#")[0], keep_blank_values=True):
        if _SECRET_PARAMETER.search(name.replace("-", "_")):
            return f"a key in its query ({name})"
    return None


def userinfo_secrets(*urls: str) -> list[str]:
    """The user:password parts written into URLs (bolt://neo4j:secret@host): secrets too."""
    found = []
    for url in urls:
        userinfo = urlsplit(url).netloc.rpartition("@")[0] if "@" in url else ""
        found += [userinfo, userinfo.partition(":")[2]] if userinfo else []
    return found
