"""The one path for every LLM call: cache, bounded concurrency, retries with backoff,
bounded and (where the endpoint honours JSON schemas) constrained answers, JSON validation
with one repair attempt, token accounting per stage (timed-out generations estimated), and a
circuit breaker: a run stops after a row of failed tasks, and at once on an error that cannot
succeed on retry (a bad request, a refused key, an unknown model). What it runs are tasks (see
tasks.py); an offline provider answers them itself."""
from __future__ import annotations

import json
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterable, Iterator

from tripartite.infra.llm.cache import AnswerCache, cache_key
from tripartite.infra.llm.providers import (JSON_ONLY, STRUCTURED, ProviderError, RetryableError, TimedOut,
                                            request_options)
from tripartite.infra.llm.schemas import ANSWER_TOKENS, clip_to_schema, without_lengths
from tripartite.infra.llm.tasks import InvalidAnswer, JsonTask, Parsed, load_json
from tripartite.infra.secrets import redact
from tripartite.infra.tokens import count_tokens

TEXT_ANSWER_TOKENS = 1024   # a free-text answer (ask, search --answer)
TIMEOUTS_PER_TASK = 2       # a bounded answer that still times out twice will not come: give up
PROBE_SCHEMA = "structured-probe-v1"
# The counts a command's result sums over its stages: the kg commands report the first five,
# analyze (which answers schemas from local models too) all of them.
TOTALS = ("calls", "prompt_tokens", "completion_tokens", "cache_hits", "failures")
ANSWER_TOTALS = TOTALS + ("truncated", "timeouts", "dropped", "clipped", "estimated_tokens")


@dataclass
class StageStats:
    tasks: int = 0
    calls: int = 0          # requests sent to the provider, retries and repairs included
    cache_hits: int = 0
    retries: int = 0
    repairs: int = 0
    failures: int = 0
    truncated: int = 0      # answers cut at max_tokens
    timeouts: int = 0       # requests that got no answer within the timeout
    dropped: int = 0        # answer items left out (an unknown concept id, items past the schema's maxItems)
    clipped: int = 0        # answer strings cut to the length the schema allows (maxLength)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated_tokens: int = 0  # of the completion tokens, estimated: what timed-out generations spent


@dataclass
class Outcome:
    task: Any
    result: Any             # the parsed answer; None when the task failed or was not sent
    error: str | None = None
    cached: bool = False
    skipped: bool = False   # not sent: the run had stopped (see LLMRunner.stopped)


@dataclass
class Accounting:
    stages: dict[str, StageStats] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, stage: str, **counts: int) -> None:
        with self.lock:
            stats = self.stages.setdefault(stage, StageStats())
            for name, value in counts.items():
                setattr(stats, name, getattr(stats, name) + value)

    def as_dict(self) -> dict[str, dict]:
        return {stage: asdict(stats) for stage, stats in sorted(self.stages.items())}

    def totals(self, names: Iterable[str]) -> dict[str, int]:
        """The named counts summed over the stages."""
        with self.lock:
            return {name: sum(getattr(stats, name) for stats in self.stages.values()) for name in names}


class LLMRunner:
    def __init__(self, provider, cache: AnswerCache | None, concurrency: int = 4, max_attempts: int = 5,
                 backoff_seconds: float = 1.0, sleep: Callable[[float], None] = time.sleep,
                 failures_in_a_row: int = 5, structured: str = "auto"):
        self.provider = provider
        self.structured = structured     # auto (probe once, cached), on, off
        self._format: str | None = None  # the answer format resolved from it
        self._format_lock = threading.Lock()
        self._speed = [0, 0.0]           # completion tokens and seconds of answered requests
        self.cache = cache
        self.concurrency = max(1, concurrency)
        self.max_attempts = max_attempts
        self.backoff_seconds = backoff_seconds
        self.sleep = sleep
        self.accounting = Accounting()
        self.failures_in_a_row = failures_in_a_row
        self.stopped: str | None = None  # why the run stopped early, if it did
        self._row = 0                    # failed tasks since the last success
        self._breaker = threading.Lock()

    def is_cached(self, task) -> bool:
        """Whether the task's answer is in the cache already (an offline provider has none)."""
        if self.provider.offline or self.cache is None:
            return False
        return self.cache.get(self._key(task)) is not None

    def _key(self, task) -> str:
        return cache_key(self.provider.name, self.provider.model, task.prompt, task.schema)

    def run(self, tasks: Iterable) -> Iterator[Outcome]:
        """Outcomes in completion order; a failed task carries its error instead of a result."""
        tasks = list(tasks)
        if self.provider.offline or self.concurrency == 1:
            for task in tasks:
                yield self._one(task)
            return
        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            futures = [pool.submit(self._one, task) for task in tasks]
            for future in as_completed(futures):
                yield future.result()

    def ask(self, task) -> Any:
        """One task's parsed answer, through the cache; the error is raised, not returned."""
        outcome = self._one(task)
        if outcome.error:
            raise ProviderError(outcome.error)
        return outcome.result

    def _one(self, task) -> Outcome:
        if self.stopped:
            return Outcome(task, None, skipped=True)
        self.accounting.add(task.stage, tasks=1)
        if self.provider.offline:
            result, _ = self.provider.answer(task)
            self.accounting.add(task.stage, calls=1)
            return Outcome(task, result)
        key = self._key(task)
        if self.cache and (hit := self.cache.get(key)):
            self.accounting.add(task.stage, cache_hits=1)
            return Outcome(task, hit[0], cached=True)
        messages = [{"role": "user", "content": task.prompt}]
        try:
            content = self._complete(task, messages)
            try:
                result = self._parse(task, content)
            except InvalidAnswer as problem:
                self.accounting.add(task.stage, repairs=1)
                messages += [{"role": "assistant", "content": content},
                             {"role": "user", "content": f"That answer is not valid: {problem}. Answer again with "
                                                         f"JSON only, exactly in this shape: {task.shape}"}]
                result = self._parse(task, self._complete(task, messages))
        except (InvalidAnswer, ProviderError, RetryableError) as exc:
            self.accounting.add(task.stage, failures=1)
            self._failed(exc)
            return Outcome(task, None, error=redact(f"{task.stage} {task.item_id}: {type(exc).__name__}: {exc}"))
        with self._breaker:
            self._row = 0
        if self.cache:
            self.cache.put(key, result, {})
        return Outcome(task, result)

    def _parse(self, task, content: str) -> Any:
        """The task's parsed answer; items it dropped (a Parsed answer) are counted."""
        if content is None:  # cut at max_tokens (see _complete)
            raise InvalidAnswer(f"the answer was cut off at {self._max_tokens(task)} tokens; answer more briefly")
        content = redact(content)
        if getattr(task, "json_schema", None):
            value, clipped, dropped = clip_to_schema(load_json(content), task.json_schema)
            if clipped or dropped:
                self.accounting.add(task.stage, clipped=clipped, dropped=dropped)
                content = json.dumps(value, ensure_ascii=False)
        result = task.parse(content)
        if isinstance(result, Parsed):
            if result.dropped:
                self.accounting.add(task.stage, dropped=result.dropped)
            return result.value
        return result

    @staticmethod
    def _max_tokens(task) -> int:
        return getattr(task, "answer_tokens", None) or ANSWER_TOKENS

    def max_tokens(self, task) -> int:
        """The bound on the task's answer (max_tokens of its request)."""
        return self._max_tokens(task)

    def answer_format(self) -> str:
        """How answers are asked for: STRUCTURED, STRUCTURED_NO_LENGTHS or JSON_ONLY. With
        structured "auto", one small probe finds out, cached per endpoint and model."""
        with self._format_lock:
            if self._format is None:
                self._format = self._resolve_format()
            return self._format

    def _resolve_format(self) -> str:
        if self.structured == "off":
            return JSON_ONLY
        if self.structured == "on":
            return STRUCTURED
        key = cache_key(self.provider.name, self.provider.model, getattr(self.provider, "base_url", ""), PROBE_SCHEMA)
        if self.cache and (hit := self.cache.get(key)):
            return hit[0]["format"]
        try:
            found = self.provider.probe_structured()
        except RetryableError:
            return JSON_ONLY  # not now: JSON mode this run, and probe again next time
        # NotTheAPI goes up (and nothing is cached): the task that asked fails with its line.
        if self.cache:
            self.cache.put(key, {"format": found}, {})
        return found

    def _failed(self, exc: Exception) -> None:
        """The circuit breaker: stop at once on an error no retry fixes, or after a row of failures."""
        with self._breaker:
            self._row += 1
            if self.stopped:
                return
            if isinstance(exc, ProviderError):
                self.stopped = redact(f"the endpoint refused a request that cannot succeed on retry ({exc}); fix the "
                                      "model name, key or endpoint and run again")
            elif self._row >= self.failures_in_a_row:
                self.stopped = redact(f"{self._row} tasks in a row failed (the last: {type(exc).__name__}: {exc}); "
                                      "check the endpoint and run again")

    def complete_text(self, prompt: str | list[dict], stage: str = "ask") -> str:
        """A free-text answer (no JSON schema) to a prompt or a list of chat messages, through
        the same cache and retries."""
        if self.provider.offline:
            raise ProviderError("the offline provider cannot answer questions; configure an LLM "
                                "(TRIPARTITE_LLM_MODEL, and OPENAI_BASE_URL for a local server)")
        messages = [{"role": "user", "content": prompt}] if isinstance(prompt, str) else list(prompt)
        key = cache_key(self.provider.name, self.provider.model,
                        "\x1e".join(f"{m['role']}\x1f{m['content']}" for m in messages), "text-v1")
        if self.cache and (hit := self.cache.get(key)):
            self.accounting.add(stage, tasks=1, cache_hits=1)
            return hit[0]["text"]
        self.accounting.add(stage, tasks=1)
        task = JsonTask(stage, "", messages[-1]["content"], "text-v1", "", str, answer_tokens=TEXT_ANSWER_TOKENS)
        text = self._complete(task, messages, json_mode=False)
        if text is None:
            raise ProviderError(f"the answer was cut off at {TEXT_ANSWER_TOKENS} tokens")
        if self.cache:
            self.cache.put(key, {"text": text}, {})
        return text

    def _complete(self, task, messages: list[dict], json_mode: bool = True) -> str | None:
        """The answer's text, or None when it was cut at max_tokens (counted as truncated).
        Retries 429s, 5xx and dropped connections with backoff; a request that timed out is
        tried once more, and what it generated meanwhile is estimated into the accounting."""
        max_tokens = self._max_tokens(task)
        schema, name = self._schema_for(task) if json_mode else (None, "answer")
        timeouts = 0
        for attempt in range(1, self.max_attempts + 1):
            self.accounting.add(task.stage, calls=1)
            started = time.monotonic()
            try:
                reply = self.provider.complete(messages, json_mode=json_mode, max_tokens=max_tokens, schema=schema,
                                               schema_name=name)
            except TimedOut:
                timeouts += 1
                burnt = self._spent_meanwhile(time.monotonic() - started, max_tokens)
                self.accounting.add(task.stage, timeouts=1, estimated_tokens=burnt, completion_tokens=burnt,
                                    prompt_tokens=sum(count_tokens(m["content"]) for m in messages))
                if timeouts >= TIMEOUTS_PER_TASK or attempt == self.max_attempts:
                    raise
                self.accounting.add(task.stage, retries=1)
                continue
            except RetryableError:
                if attempt == self.max_attempts:
                    raise
                self.accounting.add(task.stage, retries=1)
                delay = min(30.0, self.backoff_seconds * 2 ** (attempt - 1)) * (0.5 + random.random())
                self.sleep(delay)
                continue
            elapsed = time.monotonic() - started
            prompt_tokens = reply.usage.prompt_tokens or sum(count_tokens(m["content"]) for m in messages)
            completion_tokens = reply.usage.completion_tokens or count_tokens(reply.content)
            self.accounting.add(task.stage, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)
            with self._breaker:
                self._speed[0] += completion_tokens
                self._speed[1] += elapsed
            if reply.finish_reason == "length":
                self.accounting.add(task.stage, truncated=1)
                return None
            return reply.content
        raise RetryableError("no attempts left")  # unreachable: the loop returns or raises

    def _schema_for(self, task) -> tuple[dict | None, str]:
        """The JSON schema the answer is constrained to (None where the endpoint ignores
        schemas), and its name."""
        if not getattr(task, "json_schema", None) or self.answer_format() == JSON_ONLY:
            return None, "answer"
        schema = task.json_schema if self.answer_format() == STRUCTURED else without_lengths(task.json_schema)
        return schema, task.schema.replace("/", "-").replace(".", "-")[:64]

    # ---- the Batch API: the same requests, answers and cache as live calls ------------------------
    def key(self, task) -> str:
        """The task's cache key: also its custom_id in a batch."""
        return self._key(task)

    def request_body(self, task) -> dict:
        """The chat request a live call would send for `task`, as a batch line's body."""
        schema, name = self._schema_for(task)
        return {"model": self.provider.model, "messages": [{"role": "user", "content": task.prompt}],
                "temperature": 0, **request_options(True, self._max_tokens(task), schema, name)}

    def accept(self, task, content: str | None, finish_reason: str, usage: dict) -> str | None:
        """A batch's answer to `task`, parsed and cached as a live answer is (dropped items
        counted, a cut answer failed). Returns the error, or None."""
        self.accounting.add(task.stage, tasks=1, calls=1, prompt_tokens=usage.get("prompt_tokens") or 0,
                            completion_tokens=usage.get("completion_tokens") or 0)
        if finish_reason == "length":
            self.accounting.add(task.stage, truncated=1)
            content = None
        try:
            result = self._parse(task, content)
        except InvalidAnswer as problem:
            self.accounting.add(task.stage, failures=1)
            return f"{task.stage} {task.item_id}: InvalidAnswer: {problem}"
        if self.cache:
            self.cache.put(self._key(task), result, {})
        return None

    def _spent_meanwhile(self, seconds: float, max_tokens: int) -> int:
        """Tokens a timed-out request likely generated: this endpoint's measured speed times the
        wait, at most max_tokens. Before the endpoint has answered anything there is no speed to
        go by (a server that never answers has likely generated nothing): none are booked."""
        with self._breaker:
            tokens, spent = self._speed
        if tokens and spent > 0:
            return min(max_tokens, int(tokens / spent * seconds))
        return 0
