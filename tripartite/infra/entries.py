"""The entries of the YAML files a user writes (an ontology's classes and concepts, a plugin's
manifest, an eval question), declared as pydantic models: a key the model does not declare is
refused (a misspelt `synonym:` would be dropped without a word), and each key's type is checked
by its declaration. `refusal` turns pydantic's first error into the one line a user reads,
naming the file's entry and key; the readers keep the checks across entries (ids unique,
classes defined) and raise their own error class."""
from __future__ import annotations

from typing import Annotated, Any, Callable

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError


class Entry(BaseModel):
    """A mapping in a YAML file: its keys are the fields (or their aliases: `class`)."""
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    @classmethod
    def keys(cls) -> list[str]:
        return sorted(field.alias or name for name, field in cls.model_fields.items())


def text(value: Any) -> str:
    """Text as YAML reads it: a number is text too (version: 1); null is none; true, a list or a
    mapping is not text."""
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise ValueError(f"must be text, not {type(value).__name__}")
    return str(value).strip()


def required_text(value: Any) -> str:
    if value is None:
        raise ValueError("is missing; add it")
    return text(value)


def texts(value: Any) -> tuple[str, ...]:
    """A list of strings (numbers read as text), blanks dropped; null is an empty list."""
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, (str, int, float)) for v in value):
        raise ValueError("must be a list of strings")
    return tuple(str(v).strip() for v in value if str(v).strip())


Text = Annotated[str, BeforeValidator(text)]
RequiredText = Annotated[str, BeforeValidator(required_text)]
Texts = Annotated[tuple[str, ...], BeforeValidator(texts)]


def refusal(exc: ValidationError, model: type[Entry], where: Callable[[str], str],
            unknown: str = "{where} has unknown key(s) {keys}; allowed: {allowed}") -> str:
    """pydantic's first error on one entry as one line: every unknown key of the entry at once
    (`unknown`, with where("") naming the entry), else where(key) and what is wrong with it: the
    words of its declaration's validator, or of pydantic's own check."""
    errors = sorted(exc.errors(), key=lambda e: e["type"] != "extra_forbidden")
    first = errors[0]
    if first["type"] == "extra_forbidden":
        keys = sorted(str(e["loc"][0]) for e in errors if e["type"] == "extra_forbidden")
        return unknown.format(where=where(""), keys=", ".join(keys), allowed=", ".join(model.keys()))
    key = str(first["loc"][0]) if first["loc"] else ""
    if first["type"] == "missing":
        return f"{where(key)} is missing; add it"
    cause = first.get("ctx", {}).get("error")
    return f"{where(key)} {cause if isinstance(cause, ValueError) else first['msg']}"


def checked(model: type[Entry], data: Any, where: Callable[[str], str], error: type[Exception], **unknown: str):
    """`data` read as `model`, or `error` with the one line `refusal` says."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise error(refusal(exc, model, where, **unknown)) from None
