"""Rules dataclasses: every rule option of a game, validated in Python, flattened for the kernels."""

from __future__ import annotations

import dataclasses
from typing import Any, Iterable

import numpy as np


class Rules:
    """Base for a game's frozen ``Rules`` dataclass.

    Subclasses are ``@dataclass(frozen=True)`` with a ``num_players`` field and one field per rule
    option (its default is the rulebook's). They validate in ``__post_init__`` (using the ``check_*``
    helpers so every error names the option and the allowed values) and implement ``params()``.
    """

    game_name = "game"

    @classmethod
    def from_options(cls, spec, options: dict):
        names = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(set(options) - set(names))
        if unknown:
            raise ValueError(
                f"unknown option(s) {unknown} for {spec.name}; allowed options: {sorted(names)}"
            )
        return cls(**options)

    def params(self) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def option_names(cls) -> list:
        return [f.name for f in dataclasses.fields(cls)]


def check_int(name: str, value: Any, lo: int, hi: int | None = None, allow_none: bool = False):
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"option {name} must be an integer{' or None' if allow_none else ''}, got {value!r}")
    if value < lo or (hi is not None and value > hi):
        rng = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise ValueError(f"option {name}={value} is out of range; allowed: {rng}")


def check_choice(name: str, value: Any, allowed: Iterable):
    allowed = list(allowed)
    for a in allowed:
        if type(a) is type(value) and a == value:
            return
    raise ValueError(f"option {name}={value!r} is not allowed; allowed values: {allowed}")


def check_bool(name: str, value: Any):
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"option {name} must be True or False, got {value!r}")


REWARD_CODES = {"win": 0, "score": 1}
