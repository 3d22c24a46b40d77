"""Every LLM call goes through here: providers, a persistent cache, retries, validation and
token accounting (runner.py). `open_runner` is the one way to build the runner from the settings."""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from tripartite.infra.config import Settings
from tripartite.infra.llm.cache import AnswerCache
from tripartite.infra.llm.providers import make_provider
from tripartite.infra.llm.runner import LLMRunner


@contextmanager
def open_runner(settings: Settings, offline_provider=None, offline: bool = False,
                concurrency: int = 4) -> Iterator[LLMRunner]:
    """The configured OpenAI-compatible model (or, offline or unconfigured, `offline_provider`)
    behind the answer cache, which is closed at the end of the block."""
    provider = make_provider(settings, offline_provider, offline=offline)
    cache = AnswerCache(settings.llm_cache)
    try:
        yield LLMRunner(provider, cache, concurrency=concurrency, backoff_seconds=settings.llm.backoff)
    finally:
        cache.close()
