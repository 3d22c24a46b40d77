"""Reading tripartite.toml and checking each value it or the environment gives: the type a
setting's field asks for, its range, secrets kept out of files (a password or key under its own
name, or written into a URL). Every refusal is one line naming the file's key or the variable
(tripartite/infra/config.py resolves the settings)."""
from __future__ import annotations

import json
import math
import re
import sys
from dataclasses import fields
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import parse_qsl

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

from tripartite.infra.errors import ConfigError
from tripartite.infra.folders import not_regular

SECRET_KEYS = {"password", "api_key", "apikey", "key", "token", "secret"}
# A URL's query parameter that carries a secret: api_key, subscription-key, access_token, sig (a
# signed URL's), not api-version.
_SECRET_PARAMETER = re.compile(r"(?i)(key|token|secret|password|passwd|sig|signature)$")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://")
# Where the secret of a URL in each section goes instead.
_SECRET_HOMES = {"neo4j": "the user and password in the environment (NEO4J_USER, NEO4J_PASSWORD)",
                 "llm": "the key in the environment (OPENAI_API_KEY)"}


def read_toml(path: Path) -> dict[str, Any]:
    try:
        data = tomllib.loads(_config_text(path))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc}); fix the file") from None
    _refuse_secrets(path, data)
    return data


def _config_text(path: Path) -> str:
    """The file's text; a path that is no regular file (a FIFO would block the read) or a text
    that is not UTF-8, as TOML must be, is one line."""
    kind = not_regular(path)
    if kind:
        raise ConfigError(f"{path}: not a regular file ({kind}); point --config or TRIPARTITE_CONFIG at a "
                          "tripartite.toml")
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{path}: config file not found; fix the path or unset TRIPARTITE_CONFIG") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror}); check its permissions") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 (invalid byte 0x{data[exc.start]:02x} at offset {exc.start}); TOML "
                          "files are UTF-8: convert it, e.g. iconv -f latin1 -t utf-8") from None


def _refuse_secrets(path: Path, data: Mapping[str, Any], prefix: str = "") -> None:
    for key, value in data.items():
        if isinstance(value, Mapping):
            _refuse_secrets(path, value, f"{prefix}{key}.")
        elif key.lower() in SECRET_KEYS:
            raise ConfigError(
                f"{path}: '{prefix}{key}' is a secret; remove it from the file and set it in the "
                "environment (NEO4J_PASSWORD, OPENAI_API_KEY)"
            )
        elif isinstance(value, str) and (secret := url_secret(value)):
            section = prefix.rstrip(".")
            home = _SECRET_HOMES.get(section, "it in the environment (NEO4J_PASSWORD, OPENAI_API_KEY)")
            raise ConfigError(f"{where_written(path, section, key)} holds {secret}; write the URL without "
                              f"{'them' if secret.startswith('credentials') else 'it'} and set {home}")


def url_secret(value: str) -> str | None:
    """What of a URL is a secret, said without it: "credentials before '@'" (bolt://neo4j:pw@host,
    https://key@host) or "a key in its query (api_key)" for a parameter named like one; None for a
    URL without any, or text that is no URL."""
    if not _URL.match(value):
        return None
    rest = value.split("://", 1)[1]
    if "@" in re.split(r"[/?#]", rest, maxsplit=1)[0]:
        return "credentials before '@'"
    query = rest.partition("?")[2].partition("#")[0]
    for name, _ in parse_qsl(query, keep_blank_values=True):
        if _SECRET_PARAMETER.search(name.replace("-", "_")):
            return f"a key in its query ({name})"
    return None


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
    if not math.isfinite(value) or value < minimum:  # nan passes every comparison's test
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
