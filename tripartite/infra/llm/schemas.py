"""JSON schemas of the answers tasks ask for, and the token budget of an answer.

A task's `json_schema` is sent as `response_format` where the endpoint honours it (OpenAI
structured outputs; llama.cpp, vLLM and Ollama turn it into a grammar), so ids come from an
enum and strings stop at a maximum length; its `answer_tokens` is the request's `max_tokens`,
so a model that loops stops there instead of at the timeout. Where the endpoint takes no
schema, the task's parser validates and the runner asks for one repair, as before.
"""
from __future__ import annotations

from typing import Any

SLACK = 1.25          # models count tokens with their own tokenizers; cl100k_base is an estimate
ANSWER_TOKENS = 512   # a task that names no budget


def string(max_length: int | None = None) -> dict:
    return {"type": "string", **({"maxLength": max_length} if max_length else {})}


def enum(values: list[str]) -> dict:
    return {"type": "string", "enum": list(dict.fromkeys(values))}


def number(low: float, high: float) -> dict:
    return {"type": "number", "minimum": low, "maximum": high}


def array(items: dict, max_items: int | None = None) -> dict:
    return {"type": "array", "items": items, **({"maxItems": max_items} if max_items else {})}


def obj(**properties: dict) -> dict:
    """An object whose every property is required and nothing else allowed (what OpenAI's
    strict mode asks for, and what every parser here expects)."""
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def without_lengths(schema: Any) -> Any:
    """The schema without maxLength, maxItems, minimum and maximum: for endpoints that enforce
    the structure and enums but refuse those keywords (OpenAI's strict mode)."""
    if isinstance(schema, dict):
        return {k: without_lengths(v) for k, v in schema.items()
                if k not in ("maxLength", "maxItems", "minimum", "maximum")}
    if isinstance(schema, list):
        return [without_lengths(v) for v in schema]
    return schema


def budget(tokens: float) -> int:
    """An answer's max_tokens from its estimated size in cl100k_base tokens."""
    return int(tokens * SLACK) + 16


def clip_to_schema(value: Any, schema: dict | None) -> tuple[Any, int, int]:
    """(value, strings clipped, items dropped): the answer held to the lengths its schema asks
    for, as an endpoint that honours schemas would have. Answers are bounded this way before
    anything stores them, whether or not the endpoint was sent the schema: a model that ignores
    max_tokens or maxLength cannot write a 20 MB extract into the graph."""
    if not isinstance(schema, dict):
        return value, 0, 0
    if isinstance(value, str) and schema.get("maxLength") and len(value) > schema["maxLength"]:
        return _clip(value, schema["maxLength"]), 1, 0
    if isinstance(value, list):
        limit = schema.get("maxItems")
        kept = value[:limit] if limit else value
        clipped, dropped = 0, len(value) - len(kept)
        items = []
        for item in kept:
            item, c, d = clip_to_schema(item, schema.get("items"))
            items.append(item)
            clipped, dropped = clipped + c, dropped + d
        return items, clipped, dropped
    if isinstance(value, dict) and isinstance(schema.get("properties"), dict):
        clipped = dropped = 0
        out = {}
        for key, item in value.items():
            item, c, d = clip_to_schema(item, schema["properties"].get(key))
            out[key] = item
            clipped, dropped = clipped + c, dropped + d
        return out, clipped, dropped
    return value, 0, 0


def _clip(text: str, limit: int) -> str:
    """The text cut to `limit` characters, at a space when one is near the end."""
    cut = text[:limit]
    space = cut.rfind(" ")
    return (cut[:space] if space >= limit * 0.8 else cut).rstrip()
