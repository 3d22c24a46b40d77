"""Bounded reads from an OpenAI-compatible endpoint.

An endpoint that ignores max_tokens can send megabytes where a few hundred tokens were asked
for; the SDK would read all of it into memory before anyone could look. The HTTP client the
providers hand the SDK stops reading a response at a byte limit: the call in progress sets
it (`response_limit`, sized from the answer's max_tokens), every other call gets
DEFAULT_RESPONSE_BYTES (model lists, embeddings, batch files).
"""
from __future__ import annotations

import contextvars
import importlib
from contextlib import contextmanager
from typing import Iterator

DEFAULT_RESPONSE_BYTES = 64 * 1024 * 1024
ANSWER_OVERHEAD_BYTES = 16 * 1024   # the response's JSON around the answer: ids, usage, headers' worth
BYTES_PER_TOKEN = 24                # a token is a few characters; escaped in JSON (\uXXXX) at most ~6 bytes each

_limit: contextvars.ContextVar[int] = contextvars.ContextVar("tripartite_response_limit",
                                                             default=DEFAULT_RESPONSE_BYTES)


class ResponseTooLarge(Exception):
    """The endpoint sent more than the call's byte limit (the rest was not read)."""

    def __init__(self, limit: int, status_code: int):
        super().__init__(f"the endpoint sent more than {limit:,} bytes (HTTP {status_code})")
        self.limit = limit
        self.status_code = status_code


def answer_bytes(max_tokens: int) -> int:
    """The most bytes a response carrying an answer of `max_tokens` tokens can honestly take."""
    return ANSWER_OVERHEAD_BYTES + BYTES_PER_TOKEN * max(1, max_tokens)


@contextmanager
def response_limit(limit: int) -> Iterator[None]:
    """Responses read inside the block (in this thread) stop at `limit` bytes."""
    token = _limit.set(limit)
    try:
        yield
    finally:
        _limit.reset(token)


def _httpx():
    """The HTTP library the installed openai SDK is built on (httpx, or httpx2 in newer SDKs)."""
    import openai

    client_class = next(c for c in openai.DefaultHttpxClient.__mro__[1:] if c.__name__ == "Client")
    return importlib.import_module(client_class.__module__.split(".")[0])


def bounded_http_client(timeout: float):
    """The SDK's default HTTP client, whose responses stop at the current byte limit."""
    import openai

    httpx = _httpx()

    class BoundedStream(httpx.SyncByteStream):
        def __init__(self, inner, limit: int, status_code: int):
            self.inner, self.limit, self.status_code = inner, limit, status_code

        def __iter__(self):
            read = 0
            for chunk in self.inner:
                read += len(chunk)
                if read > self.limit:
                    raise ResponseTooLarge(self.limit, self.status_code)
                yield chunk

        def close(self) -> None:
            self.inner.close()

    def bound(response) -> None:  # before the body is read: every response, proxied ones too
        response.stream = BoundedStream(response.stream, _limit.get(), response.status_code)

    return openai.DefaultHttpxClient(timeout=timeout, event_hooks={"response": [bound]})
