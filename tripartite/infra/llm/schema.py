"""The one answer shape every extraction call must return, and its validation."""
from __future__ import annotations

import json

SCHEMA_VERSION = "extracts-v1"
SCHEMA_TEXT = '{"extracts": [{"concept_id": "<id>", "extract": "<text or empty>"}]}'


class InvalidAnswer(ValueError):
    pass


def parse_extracts(content: str, concept_ids: list[str]) -> dict[str, str]:
    """concept id -> extract ('' when the text says nothing about it); InvalidAnswer otherwise."""
    text = content.strip()
    if text.startswith("```"):  # models like to fence JSON
        text = text.strip("`").split("\n", 1)[-1] if "\n" in text else text.strip("`")
        text = text.rsplit("```", 1)[0]
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidAnswer(f"not JSON ({exc.msg} at character {exc.pos})") from None
    if not isinstance(data, dict) or not isinstance(data.get("extracts"), list):
        raise InvalidAnswer('the answer must be an object with an "extracts" list')
    wanted = set(concept_ids)
    found: dict[str, str] = {}
    for item in data["extracts"]:
        if not isinstance(item, dict) or not isinstance(item.get("concept_id"), str):
            raise InvalidAnswer('each extract must be an object with a string "concept_id"')
        extract = item.get("extract", "")
        if extract is None:
            extract = ""
        if not isinstance(extract, str):
            raise InvalidAnswer(f'"extract" of {item["concept_id"]} must be a string')
        if item["concept_id"] not in wanted:
            raise InvalidAnswer(f"unknown concept_id {item['concept_id']!r}; use only the listed ids")
        found[item["concept_id"]] = extract.strip()
    return {cid: found.get(cid, "") for cid in concept_ids}
