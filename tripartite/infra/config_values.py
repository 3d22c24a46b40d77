"""Reading tripartite.toml and the environment, and checking both with pydantic against the
settings' declarations (config.py): each field's type and range, no secret in the file. Every
refusal is one line naming the file's key or the variable, and what to write instead."""
from __future__ import annotations

import functools
import json
import typing
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any, Mapping

from pydantic import TypeAdapter, ValidationError

from tripartite.infra.declarations import Bounds, Env
from tripartite.infra.errors import ConfigError
from tripartite.infra.tomlfile import read_toml

# What a value of the wrong type should have been, by pydantic's error type; and the range errors.
_WORDS = {"string_type": "text in quotes", "int_type": "a whole number", "float_type": "a number",
          "bool_type": "true or false", "tuple_type": "a list"}
_RANGE = {"greater_than_equal", "less_than_equal", "finite_number", "too_short", "too_long"}
_SWITCH = {"on": True, "1": True, "true": True, "off": False, "0": False, "false": False}


def read_settings(root: type, path: Path | None, env: Mapping[str, str]) -> tuple[Any, dict]:
    """The settings (`root`) that the file's sections and, over them, the environment give, checked;
    and where each value came from: {(section, key): (the file's key or the variable, the value)}."""
    data = read_toml(path) if path else {}
    sections = sorted(name for name, hint in _hints(root).items() if is_dataclass(hint))
    if unknown := sorted(set(data) - set(sections)):
        raise ConfigError(f"{path}: unknown section(s) {', '.join(unknown)}; allowed: {', '.join(sections)}")
    values = {name: dict(table) if isinstance(table, Mapping) else table for name, table in data.items()}
    origins = {(name, key): (f"{path}: [{name}] {key}", value)
               for name, table in data.items() if isinstance(table, Mapping) for key, value in table.items()}
    checked(root, values, origins, path)  # the file alone first: a bad key is refused where a variable overrides it
    for at, hint in _keys(root):
        if variable := next((v for e in _metadata(hint, Env) for v in e.names if env.get(v)), None):
            raw = env[variable]
            (values.setdefault(at[0], {}) if len(at) > 1 else values)[at[-1]] = _typed(variable, raw, hint)
            origins[at] = (variable, raw)
    return checked(root, values, origins, path), origins


def _typed(variable: str, raw: str, hint: Any) -> Any:
    """A variable's text as its field's type: a number, on or off, a pair (a,b); else the text."""
    while typing.get_origin(hint) in (typing.Annotated, typing.Union, type(int | None)):  # to int in int | None
        hint = next(arg for arg in typing.get_args(hint) if arg is not type(None))
    kind = tuple if typing.get_origin(hint) is tuple else hint if hint in (int, float, bool) else str
    try:
        return [float(x) for x in raw.split(",")] if kind is tuple else _SWITCH[raw.lower()] if kind is bool else kind(raw)
    except (ValueError, KeyError):
        if kind is tuple:  # the text as it is, for the field's own refusal
            return raw
        words = {int: "a whole number", float: "a number", bool: "on or off"}[kind]
        raise ConfigError(f"{variable}={raw!r} is not {words}; fix or unset it") from None


def checked(root: type, values: dict, origins: Mapping[tuple, tuple[str, Any]], path: Path | None):
    """`values` read by pydantic into `root`, in JSON's strict types (true is no number and 5 no
    text, while a path is written as text and a pair as a list), or its first error, in one line.
    A TOML date or time, which no setting takes, goes in as an object, to be refused as such."""
    try:
        return _adapter(root).validate_json(json.dumps(values, default=lambda v: {"TOML date": str(v)}), strict=True)
    except ValidationError as exc:
        errors = sorted(exc.errors(), key=lambda e: e["type"] != "unexpected_keyword_argument")
        raise ConfigError(refusal(errors, root, origins, path)) from None


def refusal(errors: list[dict], root: type, origins: Mapping[tuple, tuple[str, Any]], path: Path | None) -> str:
    """pydantic's first error as the line a user reads: the key or variable, its value, the fix."""
    first = errors[0]
    loc = tuple(str(part) for part in first["loc"])
    if first["type"] == "unexpected_keyword_argument":  # every unknown key of the section at once
        extra = sorted(e["loc"][1] for e in errors if e["type"] == first["type"] and e["loc"][0] == loc[0])
        known = sorted(f.name for f in fields(_hints(root)[loc[0]]) if f.repr)  # not the secrets
        return f"{path}: unknown key(s) in [{loc[0]}]: {', '.join(extra)}; allowed: {', '.join(known)}"
    if first["type"] == "dataclass_type":
        return f"{path}: [{loc[0]}] must be a table"
    at = loc[:2] if is_dataclass(_hints(root)[loc[0]]) else loc[:1]
    label, raw = origins[at]
    value = first["input"] if len(loc) == len(at) else raw  # an item of a pair: the pair
    shown = f"{label} = {json.dumps(value)}" if "[" in label else f"{label}={value}"
    bounds = next(iter(_metadata(dict(_keys(root))[at], Bounds)), Bounds())
    if first["type"] == "literal_error":
        return f"{shown} is unknown; use {first['ctx']['expected']}"
    if first["type"] in _RANGE or bounds.wrong:
        return (bounds.says if first["type"] in _RANGE else bounds.wrong).format(shown=shown, raw=raw)
    return f"{shown} must be {_WORDS.get(first['type'], 'another value')}; fix the file"


@functools.cache
def _adapter(root: type) -> TypeAdapter:  # built once a process: building takes 15 ms
    return TypeAdapter(root)


def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls, include_extras=True)


def _keys(root: type):
    """((section, key), declared type) for every key of every section, ((name,), type) for root's others."""
    for name, hint in _hints(root).items():
        yield from (((name, key), of) for key, of in _hints(hint).items()) if is_dataclass(hint) else [((name,), hint)]


def _metadata(hint: Any, kind: type) -> list:
    """The `kind` objects a declared type carries, the outermost first (prices': the pair's Bounds)."""
    found = [m for m in getattr(hint, "__metadata__", ()) if isinstance(m, kind)]
    return found + [m for arg in typing.get_args(hint) for m in _metadata(arg, kind)]
