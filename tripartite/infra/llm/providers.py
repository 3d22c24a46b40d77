"""LLM providers: any OpenAI-compatible chat endpoint. Offline providers (real algorithms,
not stand-ins for a model's answers) live with the step they serve, e.g.
tripartite/analysis/extractive.py, and are handed to make_provider."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ConceptInfo:
    id: str
    name: str
    synonyms: tuple[str, ...]
    description: str

    @property
    def gloss(self) -> str:
        """The text a concept is embedded as."""
        extra = f" ({', '.join(self.synonyms)})" if self.synonyms else ""
        return f"{self.name}: {self.description}{extra}"


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0


class RetryableError(Exception):
    """429, 5xx, timeouts and dropped connections: worth another try after a pause."""


class ProviderError(Exception):
    """Anything else (bad key, unknown model): retrying will not help."""


class OpenAIChatProvider:
    """Any OpenAI-compatible chat completions endpoint (OpenAI, Azure, Ollama, vLLM, llama.cpp)."""

    offline = False
    name = "openai"

    def __init__(self, model: str, base_url: str = "", api_key: str = "", timeout: float = 60.0):
        import openai

        from tripartite.infra.config import mask_userinfo

        self.model = model
        self.where = mask_userinfo(base_url) or "the OpenAI API"  # for messages: never a key
        self.client = openai.OpenAI(base_url=base_url or None, api_key=api_key or "not-needed",
                                    timeout=timeout, max_retries=0)  # retries are the runner's job

    def check_reachable(self) -> None:
        """Fail fast, with one line, when the endpoint does not answer at all."""
        import openai

        from tripartite.infra.errors import TripartiteError

        where = self.where
        try:
            self.client.models.list()
        except (openai.APIConnectionError, openai.APITimeoutError) as exc:
            raise TripartiteError(f"LLM endpoint {where} is not reachable ({type(exc).__name__}); check "
                                  "OPENAI_BASE_URL, or unset TRIPARTITE_LLM_MODEL to use the offline provider") from None
        except openai.AuthenticationError:
            raise TripartiteError(f"LLM endpoint {where} refused the API key; set OPENAI_API_KEY") from None
        except openai.APIError:
            pass  # some servers have no /models; the calls themselves will tell

    def complete(self, messages: list[dict], json_mode: bool = True) -> tuple[str, Usage]:
        import openai

        extra = {"response_format": {"type": "json_object"}} if json_mode else {}
        try:
            response = self.client.chat.completions.create(
                model=self.model, messages=messages, temperature=0, **extra)
        except (openai.RateLimitError, openai.APITimeoutError, openai.APIConnectionError,
                openai.InternalServerError) as exc:
            raise RetryableError(f"{type(exc).__name__}: {str(exc)[:120]}") from None
        except openai.APIStatusError as exc:
            if exc.status_code >= 500:
                raise RetryableError(f"HTTP {exc.status_code}") from None
            raise ProviderError(f"HTTP {exc.status_code}: {str(exc)[:160]}") from None
        content = response.choices[0].message.content or ""
        usage = response.usage
        return content, Usage(usage.prompt_tokens if usage else 0, usage.completion_tokens if usage else 0)


def make_provider(settings, offline_provider=None, offline: bool = False):
    """The configured OpenAI-compatible model, or `offline_provider` when none is configured
    (or offline is asked for)."""
    if settings.llm.configured and not offline:
        return OpenAIChatProvider(settings.llm.model, settings.llm.base_url, settings.llm.api_key,
                                  timeout=settings.llm.timeout)
    if offline_provider is None:
        from tripartite.infra.errors import TripartiteError

        raise TripartiteError("this step needs an LLM: set TRIPARTITE_LLM_MODEL (plus OPENAI_API_KEY, or "
                              "OPENAI_BASE_URL for a local OpenAI-compatible server)")
    return offline_provider
