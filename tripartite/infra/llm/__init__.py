"""Every LLM call goes through here: providers, a persistent cache, retries, validation and
token accounting (runner.py). `open_runner` is the one way to build the runner from the settings."""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from tripartite.infra.config import Settings
from tripartite.infra.llm.cache import AnswerCache
from tripartite.infra.llm.providers import make_provider
from tripartite.infra.llm.runner import LLMRunner

DEFAULT_CONCURRENCY = 4


def concurrency_for(settings: Settings, provider, asked: int | None = None) -> int:
    """Requests in flight: the one asked for (a command's --concurrency), else the setting,
    else 4; never more than the server says it serves at once (llama.cpp reports its slots),
    since more only queue there and time out waiting."""
    wanted = asked or settings.llm.concurrency or DEFAULT_CONCURRENCY
    slots = None if provider.offline else provider.server_slots()
    return min(wanted, slots) if slots else wanted


@contextmanager
def open_runner(settings: Settings, offline_provider=None, offline: bool = False,
                concurrency: int | None = None) -> Iterator[LLMRunner]:
    """The configured OpenAI-compatible model (or, offline or unconfigured, `offline_provider`)
    behind the answer cache, which is closed at the end of the block."""
    provider = make_provider(settings, offline_provider, offline=offline)
    cache = AnswerCache(settings.llm_cache)
    try:
        yield LLMRunner(provider, cache, concurrency=concurrency_for(settings, provider, concurrency),
                        backoff_seconds=settings.llm.backoff, structured=settings.llm.structured)
    finally:
        cache.close()
