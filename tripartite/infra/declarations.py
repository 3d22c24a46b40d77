"""How a setting is declared (config.py): its range and what a value out of it is told
(`Bounds`), the environment variables that set it (`Env`), and a [section] as a frozen
dataclass that pydantic reads strictly; plus the kinds of value several settings share."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated


@dataclass(frozen=True)
class Bounds:
    """A value's range (pydantic's ge, le) and its refusal: `says` out of range, `wrong` of the wrong
    type (None: "must be a number"...); {shown} is the key or variable with the value, {raw} the value."""
    ge: float | None = None
    le: float | None = None
    says: str = "{shown} is out of range"
    wrong: str | None = None

    def __get_pydantic_core_schema__(self, source, handler):  # pydantic calls it, when settings are read
        return {**handler(source), **{k: v for k, v in (("ge", self.ge), ("le", self.le)) if v is not None}}


class Env:
    """The environment variables that set a key (the first one set wins; an empty one is unset)."""
    def __init__(self, *names: str):
        self.names = names


def at_least(low: float, fix: str = "") -> Bounds:
    return Bounds(ge=low, says=f"{{shown}} is out of range; {fix or f'use {low} or more'}")


def section(cls: type) -> type:
    """A [section] of tripartite.toml: a frozen dataclass; pydantic refuses unknown keys, nan and inf."""
    cls.__pydantic_config__ = {"extra": "forbid", "allow_inf_nan": False}
    return dataclass(frozen=True)(cls)


Port = Annotated[int, Bounds(1, 65535, "{shown} is out of range; use 1-65535",
                             "{shown} is not a port number; use an integer 1-65535")]
Positive = Annotated[int, Bounds(ge=1, says="{shown} must be a positive integer")]
Probability = Annotated[float, Bounds(0, 1, "{shown} is not a probability; use 0 to 1")]
Cosine = Annotated[float, Bounds(-1, 1, "{shown} is out of range; use a cosine, -1 to 1")]
Tokens = Annotated[int, at_least(100, "use 100 or more tokens")]
PRICES = ("LLM prices {raw!r} are not two numbers (TRIPARTITE_LLM_PRICES=in,out or [llm] prices = [in, out], "
          "USD per million tokens)")
Price = Annotated[float, Bounds(ge=0)]
Prices = Annotated[tuple[Price, Price], Bounds(says=PRICES, wrong=PRICES)]
