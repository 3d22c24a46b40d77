"""The OpenAI Batch API (/v1/files, /v1/batches): the runner's requests as JSONL, sent at half
the price and answered within 24 hours. Each line's custom_id is the task's cache key, so a
collected answer lands in the same cache a live call fills, and the same writers take it.
The batch's id and state live in the graph (cypher/infra/*batch*.cypher), so `tripartite
batches collect` resumes after a restarted machine or a killed process."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from tripartite.infra.errors import TripartiteError
from tripartite.infra.llm.providers import shown
from tripartite.infra.llm.transport import ResponseTooLarge, response_limit
from tripartite.infra.secrets import bounded

ENDPOINT = "/v1/chat/completions"
WINDOW = "24h"
TERMINAL = ("completed", "expired", "failed", "cancelled")  # the API's last states
BATCH_FILE_BYTES = 1024 ** 3  # an output file: thousands of answers, each bounded by its max_tokens


@dataclass(frozen=True)
class Line:
    """One answer of a batch's output or error file."""
    custom_id: str
    content: str | None      # None: the request failed (error says why)
    finish_reason: str
    usage: dict
    error: str | None


def _client(runner):
    client = getattr(runner.provider, "client", None)
    if client is None or runner.provider.offline:
        raise TripartiteError("--batch needs an OpenAI-compatible endpoint with the Batch API; configure "
                              "TRIPARTITE_LLM_MODEL (and OPENAI_API_KEY), or drop --batch")
    return client


def _api(action: str, runner, work, expect: str | None = None) -> Any:
    """The API's answer to one request, or one line saying what went wrong. `expect` names an
    attribute the answer must have: the SDK hands a body that is not the API's JSON back as
    text (or fails to decode it)."""
    import openai

    try:
        with response_limit(BATCH_FILE_BYTES):
            answer = work()
        if expect is not None and not hasattr(answer, expect):
            raise ValueError(f"no {expect}")
        return answer
    except ResponseTooLarge as exc:
        raise TripartiteError(f"{runner.provider.where} sent more than {exc.limit:,} bytes while {action}; nothing "
                              "was collected: check OPENAI_BASE_URL (is it the API?)") from None
    except (ValueError, AttributeError, TypeError):  # JSONDecodeError is a ValueError
        raise TripartiteError(f"{runner.provider.where} answered with something that is not the OpenAI API's JSON "
                              f"while {action} (a web page or a proxy's?); check OPENAI_BASE_URL: it should be the "
                              "API's base, usually ending in /v1") from None
    except openai.AuthenticationError:
        raise TripartiteError(f"{runner.provider.where} refused the API key while {action}; set OPENAI_API_KEY") from None
    except openai.NotFoundError:
        raise TripartiteError(f"{runner.provider.where} has no Batch API ({action} got HTTP 404); "
                              "run without --batch") from None
    except openai.APIStatusError as exc:
        raise TripartiteError(f"{runner.provider.where} answered HTTP {exc.status_code} while {action}: "
                              f"{shown(exc)}") from None
    except openai.APIError as exc:
        raise TripartiteError(f"{runner.provider.where} did not answer while {action} ({type(exc).__name__}); "
                              "nothing was lost: run the command again") from None


def jsonl(runner, tasks: list) -> tuple[str, int]:
    """The batch's input file: one request per distinct prompt (tasks with the same prompt
    share a cache key, so one answer serves both)."""
    seen: set[str] = set()
    lines = []
    for task in tasks:
        key = runner.key(task)
        if key in seen:
            continue
        seen.add(key)
        lines.append(json.dumps({"custom_id": key, "method": "POST", "url": ENDPOINT,
                                 "body": runner.request_body(task)}, ensure_ascii=False))
    return "\n".join(lines) + "\n", len(lines)


def submit(runner, tasks: list, stage: str) -> dict:
    """Upload the requests and create the batch: {"id", "state", "input_file_id", "requests"}."""
    client = _client(runner)
    data, requests = jsonl(runner, tasks)
    upload = _api("uploading the batch file", runner,
                  lambda: client.files.create(file=("tripartite-batch.jsonl", data.encode("utf-8")), purpose="batch"),
                  expect="id")
    batch = _api("creating the batch", runner,
                 lambda: client.batches.create(input_file_id=upload.id, endpoint=ENDPOINT, completion_window=WINDOW,
                                               metadata={"tripartite_stage": stage}), expect="status")
    return {"id": batch.id, "state": batch.status, "input_file_id": upload.id, "requests": requests}


def refresh(runner, batch_id: str) -> dict:
    """The batch's state as the API reports it now."""
    client = _client(runner)
    batch = _api(f"reading batch {batch_id}", runner, lambda: client.batches.retrieve(batch_id), expect="status")
    counts = batch.request_counts
    return {"state": bounded(str(batch.status), 40), "output_file_id": batch.output_file_id or "",
            "error_file_id": batch.error_file_id or "",
            "completed": counts.completed if counts else 0, "failed": counts.failed if counts else 0,
            "total": counts.total if counts else 0}


def lines(runner, file_id: str) -> list[Line]:
    """The answers (or errors) in an output or error file."""
    if not file_id:
        return []
    client = _client(runner)
    text = _api(f"downloading file {file_id}", runner, lambda: client.files.content(file_id).text)
    found = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            row = json.loads(raw)
            row["custom_id"]
        except (ValueError, TypeError, KeyError):
            raise TripartiteError(f"line {number} of file {file_id} from {runner.provider.where} is not a batch "
                                  "answer (JSON with a custom_id); nothing was collected: check OPENAI_BASE_URL and "
                                  "collect again") from None
        response = row.get("response") or {}
        body = response.get("body") or {}
        error = row.get("error")
        if error or response.get("status_code", 200) >= 400 or not body.get("choices"):
            detail = (error or body.get("error") or {}).get("message") or (error or {}).get("code") or "no answer"
            found.append(Line(row["custom_id"], None, "", {},
                              bounded(f"{(error or {}).get('code') or 'error'}: {detail}")))
            continue
        choice = body["choices"][0]
        found.append(Line(row["custom_id"], choice["message"].get("content") or "",
                          choice.get("finish_reason") or "stop", body.get("usage") or {}, None))
    return found
