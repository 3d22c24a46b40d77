"""Reading tripartite.toml and checking each value it or the environment gives: the type a
setting's field asks for, its range, secrets kept out of files. Every refusal is one line
naming the file's key or the variable (tripartite/infra/config.py resolves the settings)."""
from __future__ import annotations

import json
import sys
from dataclasses import fields
from pathlib import Path
from typing import Any, Mapping

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

from tripartite.infra.errors import ConfigError

SECRET_KEYS = {"password", "api_key", "apikey", "key", "token", "secret"}

def read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError:
        raise ConfigError(f"{path}: config file not found; fix the path or unset TRIPARTITE_CONFIG") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc}); fix the file") from None
    _refuse_secrets(path, data)
    return data


def _refuse_secrets(path: Path, data: Mapping[str, Any], prefix: str = "") -> None:
    for key, value in data.items():
        if isinstance(value, Mapping):
            _refuse_secrets(path, value, f"{prefix}{key}.")
        elif key.lower() in SECRET_KEYS:
            raise ConfigError(
                f"{path}: '{prefix}{key}' is a secret; remove it from the file and set it in the "
                "environment (NEO4J_PASSWORD, OPENAI_API_KEY)"
            )


def read_section(path: Path | None, data: Mapping[str, Any], name: str, allowed: set[str]) -> dict[str, Any]:
    section = data.get(name, {})
    if not isinstance(section, Mapping):
        raise ConfigError(f"{path}: [{name}] must be a table")
    unknown = sorted(set(section) - allowed)
    if unknown:
        raise ConfigError(f"{path}: unknown key(s) in [{name}]: {', '.join(unknown)}; allowed: {', '.join(sorted(allowed))}")
    return dict(section)


def port_number(value: Any, name: str) -> int:
    try:
        port = int(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{name}={value!r} is not a port number; use an integer 1-65535") from None
    if not 0 < port < 65536:
        raise ConfigError(f"{name}={port} is out of range; use 1-65535")
    return port


def where_written(path: Path | None, section: str, key: str) -> str:
    """Where a setting was written, for an error: the file and its [section] key."""
    return f"{path}: [{section}] {key}" if path else f"[{section}] {key}"


# What each field's annotation asks of a value in the file; bool is refused where a number is
# asked (TOML's true is no alpha), and an int is taken where a float is.
_KINDS = {"str": ((str,), "text in quotes"), "Path": ((str,), "a path in quotes"),
          "int": ((int,), "a whole number"), "float": ((int, float), "a number"),
          "bool": ((bool,), "true or false")}


def shown_setting(label: str, value: Any) -> str:
    """`[llm] timeout = "fast"` for a file's key, `TRIPARTITE_LLM_TIMEOUT=-1` for a variable,
    the value as TOML writes it."""
    return f"{label} = {json.dumps(value)}" if "[" in label else f"{label}={value}"


def check_types(path: Path | None, section: str, values: Mapping[str, Any], kinds: Mapping[str, str]) -> None:
    """Refuse, naming the key, a value of the wrong type before any of it is used."""
    for key, value in values.items():
        kind = kinds.get(key, "").split(" | ")[0]
        if kind not in _KINDS:
            continue  # checked where it is parsed (prices, home)
        allowed, words = _KINDS[kind]
        if (isinstance(value, bool) and kind != "bool") or not isinstance(value, allowed):
            raise ConfigError(f"{shown_setting(where_written(path, section, key), value)} must be {words}; fix the file")


def field_kinds(cls) -> dict[str, str]:
    return {f.name: str(f.type) for f in fields(cls)}


def at_least(label: str, value: float, minimum: float, fix: str) -> None:
    if value < minimum:
        raise ConfigError(f"{shown_setting(label, value)} is out of range; {fix}")


def env_number(env: Mapping[str, str], name: str, integer: bool = False) -> float | int | None:
    """An environment variable read as a number, or None when unset or empty."""
    raw = env.get(name)
    if raw in (None, ""):
        return None
    try:
        return int(raw) if integer else float(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not {'a whole number' if integer else 'a number'}; "
                          f"fix or unset it") from None


def optional_bool(path, section: str, key: str, value) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    raise ConfigError(f"{where_written(path, section, key)} must be true or false, not {value!r}")
