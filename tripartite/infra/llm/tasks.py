"""What the LLM runner runs: a task is one prompt whose answer must have a given JSON shape.

A task gives its stage (for the accounting), an item id (for messages), the exact prompt
(part of the cache key), `schema` (the answer shape's name and version, also part of the
key), `shape` (the shape shown to a model that answered wrongly), `json_schema` (the same
shape as a JSON schema, sent where the endpoint honours it; see schemas.py), `answer_tokens`
(the answer's max_tokens) and `parse(content)`, which returns the answer's value (or a Parsed
one that counts what it left out) or raises InvalidAnswer. Each step defines its own tasks
(tripartite/analysis/schema.py, and so on); an offline provider answers them with
`answer(task)`.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable

from tripartite.infra.llm.schemas import ANSWER_TOKENS


class InvalidAnswer(ValueError):
    pass


def load_json(content: str) -> Any:
    """The JSON value of an answer, fenced or not; InvalidAnswer when it is not JSON."""
    text = content.strip()
    if text.startswith("```"):  # models like to fence JSON
        text = text.strip("`").split("\n", 1)[-1] if "\n" in text else text.strip("`")
        text = text.rsplit("```", 1)[0]
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidAnswer(f"not JSON ({exc.msg} at character {exc.pos})") from None


@dataclass(frozen=True)
class Parsed:
    """A valid answer from which `dropped` items were left out (an unknown concept id, say):
    counted by the runner, not a failure."""

    value: Any
    dropped: int = 0


@dataclass(frozen=True)
class JsonTask:
    """A task defined by a parser: for one-off questions such as a judge's."""

    stage: str
    item_id: str
    prompt: str
    schema: str
    shape: str
    parser: Callable[[str], Any]
    json_schema: dict | None = None
    answer_tokens: int = ANSWER_TOKENS

    def parse(self, content: str) -> Any:
        return self.parser(content)
