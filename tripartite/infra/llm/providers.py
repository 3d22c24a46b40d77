"""LLM providers: any OpenAI-compatible chat endpoint. Offline providers (real algorithms,
not stand-ins for a model's answers) live with the step they serve, e.g.
tripartite/analysis/extractive.py, and are handed to make_provider."""
from __future__ import annotations

import json
import urllib.request
from dataclasses import dataclass

from tripartite.infra.errors import TripartiteError
from tripartite.infra.llm.schemas import ANSWER_TOKENS
from tripartite.infra.llm.transport import ResponseTooLarge, answer_bytes, bounded_http_client, response_limit
from tripartite.infra.secrets import bounded, mask_userinfo, redact, register

STRUCTURED = "schema"             # JSON schemas honoured, lengths included
STRUCTURED_NO_LENGTHS = "schema-without-lengths"  # enums and structure honoured; lengths refused (OpenAI strict)
JSON_ONLY = "json"                # no schemas: JSON mode, the parser validates, one repair
PROBE_VALUE = "tripartite-probe-ok"
SLOTS_BYTES = 1024 * 1024  # llama.cpp's /props or /slots: a few KB; more is not that server


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass
class Reply:
    content: str
    usage: Usage
    finish_reason: str = "stop"   # "length": cut at max_tokens


class RetryableError(Exception):
    """429, 5xx, timeouts and dropped connections: worth another try after a pause."""


class TimedOut(RetryableError):
    """The request was sent and no answer came within the timeout: the server generated for
    that long (the runner estimates what it spent)."""


class ProviderError(Exception):
    """Anything else (bad key, unknown model): retrying will not help."""


class NotTheAPI(ProviderError, TripartiteError):
    """The endpoint answered with a body that is not the OpenAI API's JSON (a login page, a
    proxy's): no request to it can succeed, nor can it say whether it honours schemas."""


def shown(exc: Exception, limit: int = 160) -> str:
    """What an endpoint's error says, fit for a message: one line, secrets it echoed masked, cut
    after masking (a cut never leaves half a key)."""
    return bounded(str(exc), limit)


def request_options(json_mode: bool, max_tokens: int | None, schema: dict | None, schema_name: str) -> dict:
    """A chat request's answer format and bound, the same for a live call and a batch line."""
    if schema is not None:
        extra: dict = {"response_format": {"type": "json_schema",
                                           "json_schema": {"name": schema_name, "schema": schema, "strict": True}}}
    else:
        extra = {"response_format": {"type": "json_object"}} if json_mode else {}
    if max_tokens:
        extra["max_tokens"] = max_tokens
    return extra


class OpenAIChatProvider:
    """Any OpenAI-compatible chat completions endpoint (OpenAI, Azure, Ollama, vLLM, llama.cpp)."""

    offline = False
    name = "openai"

    def __init__(self, model: str, base_url: str = "", api_key: str = "", timeout: float = 60.0):
        import openai

        self.model = model
        self.base_url = base_url
        self.timeout = timeout
        register(api_key)
        self.where = mask_userinfo(base_url) or "the OpenAI API"  # for messages: never a key
        self.client = openai.OpenAI(base_url=base_url or None, api_key=api_key or "not-needed",
                                    timeout=timeout, max_retries=0,  # retries are the runner's job
                                    http_client=bounded_http_client(timeout))

    def check_reachable(self) -> None:
        """Fail fast, with one line, when the endpoint does not answer at all."""
        import openai

        where = self.where
        try:
            self.client.models.list()
        except (ValueError, AttributeError, TypeError):  # a body that is not the API's JSON (JSONDecodeError is a ValueError)
            raise TripartiteError(f"LLM endpoint {where} answered with something that is not the OpenAI API's JSON "
                                  "(a web page or a proxy's?); check OPENAI_BASE_URL: it should be the API's base, "
                                  "usually ending in /v1") from None
        except (openai.APIConnectionError, openai.APITimeoutError) as exc:
            raise TripartiteError(f"LLM endpoint {where} is not reachable ({type(exc).__name__}); check "
                                  "OPENAI_BASE_URL, or unset TRIPARTITE_LLM_MODEL to use the offline provider") from None
        except openai.AuthenticationError:
            raise TripartiteError(f"LLM endpoint {where} refused the API key; set OPENAI_API_KEY") from None
        except openai.APIError:
            pass  # some servers have no /models; the calls themselves will tell

    def complete(self, messages: list[dict], json_mode: bool = True, max_tokens: int | None = None,
                 schema: dict | None = None, schema_name: str = "answer") -> Reply:
        """One chat completion. With `schema`, the answer is constrained to it (response_format
        json_schema); else, with json_mode, to JSON. `max_tokens` bounds the answer."""
        import openai

        extra = request_options(json_mode, max_tokens, schema, schema_name)
        try:
            with response_limit(answer_bytes(max_tokens or ANSWER_TOKENS)):
                response = self.client.chat.completions.create(
                    model=self.model, messages=messages, temperature=0, **extra)
            if not getattr(response, "choices", None):  # the SDK hands back a non-JSON body as it came
                raise ValueError("no choices")
        except ResponseTooLarge as exc:
            if exc.status_code >= 400:
                raise ProviderError(f"HTTP {exc.status_code} with an error body over {exc.limit:,} bytes") from None
            return Reply("", Usage(), "length")  # an endpoint that ignores max_tokens: the answer is cut here
        except ValueError:  # JSONDecodeError too
            raise NotTheAPI(f"{self.where} answered the chat request with something that is not the OpenAI API's "
                                "JSON (a web page or a proxy's?); check OPENAI_BASE_URL: it should be the API's base, "
                                "usually ending in /v1") from None
        except openai.APITimeoutError:
            raise TimedOut(f"no answer within {self.timeout:g} s") from None
        except (openai.RateLimitError, openai.APIConnectionError, openai.InternalServerError) as exc:
            raise RetryableError(f"{type(exc).__name__}: {shown(exc)}") from None
        except openai.APIStatusError as exc:
            if exc.status_code >= 500:
                raise RetryableError(f"HTTP {exc.status_code}") from None
            raise ProviderError(f"HTTP {exc.status_code}: {shown(exc)}") from None
        choice = response.choices[0]
        usage = response.usage
        return Reply(redact(choice.message.content or ""),
                     Usage(usage.prompt_tokens if usage else 0, usage.completion_tokens if usage else 0),
                     choice.finish_reason or "stop")

    def probe_structured(self) -> str:
        """Whether the endpoint honours a JSON schema in response_format: one small request whose
        prompt asks for a value the schema's enum forbids. STRUCTURED when the enum (and the
        length limit) hold; STRUCTURED_NO_LENGTHS when lengths are refused but enums hold;
        JSON_ONLY when schemas are refused or ignored. NotTheAPI when the endpoint is not the
        API at all."""
        from tripartite.infra.llm.schemas import enum, obj, string, without_lengths

        schema = obj(color=enum([PROBE_VALUE]), note=string(8))
        messages = [{"role": "user", "content": 'Answer with JSON only: {"color": "banana", "note": "a yellow fruit"}'}]
        for attempt, mode in ((schema, STRUCTURED), (without_lengths(schema), STRUCTURED_NO_LENGTHS)):
            try:
                reply = self.complete(messages, max_tokens=40, schema=attempt, schema_name="probe")
            except NotTheAPI:
                raise  # not a refusal of the schema: nothing the endpoint says can be believed
            except ProviderError:
                continue  # the endpoint refused this schema: try without lengths, then give up
            try:
                answer = json.loads(reply.content)
            except json.JSONDecodeError:
                return JSON_ONLY
            honoured = isinstance(answer, dict) and answer.get("color") == PROBE_VALUE
            return mode if honoured else JSON_ONLY
        return JSON_ONLY

    def server_slots(self) -> int | None:
        """How many requests the server serves at once, where it says (llama.cpp's /slots or
        /props): more in flight only queue there and eat into their timeouts."""
        if not self.base_url:
            return None
        root = self.base_url.rstrip("/").removesuffix("/v1")
        for path, read in (("/props", lambda d: d.get("total_slots")), ("/slots", lambda d: len(d) if isinstance(d, list) else None)):
            try:
                with urllib.request.urlopen(root + path, timeout=3) as response:  # noqa: S310 (the user's endpoint)
                    slots = read(json.loads(response.read(SLOTS_BYTES)))
            except Exception:  # not llama.cpp, or the endpoint is off: no figure
                continue
            if isinstance(slots, int) and slots > 0:
                return slots
        return None


def make_provider(settings, offline_provider=None, offline: bool = False):
    """The configured OpenAI-compatible model, or `offline_provider` when none is configured
    (or offline is asked for)."""
    if settings.llm.configured and not offline:
        return OpenAIChatProvider(settings.llm.model, settings.llm.base_url, settings.llm.api_key,
                                  timeout=settings.llm.timeout)
    if offline_provider is None:
        raise TripartiteError("this step needs an LLM: set TRIPARTITE_LLM_MODEL (plus OPENAI_API_KEY, or "
                              "OPENAI_BASE_URL for a local OpenAI-compatible server)")
    return offline_provider
