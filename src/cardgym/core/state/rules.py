"""Rules dataclasses: every rule option of a game, validated in Python, flattened for the kernels."""

from __future__ import annotations

import dataclasses
import operator
from typing import Any, Iterable

import numpy as np


class UnknownOptionError(TypeError, ValueError):
    """An unknown keyword option: a ``TypeError`` worded as Python words an unexpected keyword argument
    (``got an unexpected keyword argument 'frameskip'``), so wrappers that probe keywords and retry
    without them (TorchRL's ``GymEnv`` passes ``frameskip=``) work, and a ``ValueError`` listing the
    allowed options, as every other bad option is."""


class Rules:
    """Base for a game's frozen ``Rules`` dataclass.

    Subclasses are ``@dataclass(frozen=True)`` with a ``num_players`` field and one field per rule
    option (its default is the rulebook's). They validate in ``_validate`` (using the ``check_*``
    helpers so every error names the option and the allowed values) and implement ``params()``.

    Every option is first coerced here, in one place for all games (`coerce_option`): numpy scalars
    of any width (``np.int8(2)``, ``np.uint64(3)``, ``np.bool_(True)``, ``np.str_``) and other objects
    with ``__index__`` become plain Python ``int``/``bool``/``str``, so the rules behave exactly as
    with Python values (no fixed-width arithmetic) and ``as_dict()`` stays JSON. Floats are never
    coerced to integers (``_validate`` refuses them).
    """

    game_name = "game"

    def __post_init__(self):
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            coerced = coerce_option(value)
            if coerced is not value:
                object.__setattr__(self, f.name, coerced)
        self._validate()

    def _validate(self):  # pragma: no cover - abstract
        raise NotImplementedError

    @classmethod
    def from_options(cls, spec, options: dict):
        names = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(set(options) - set(names))
        if unknown:
            raise UnknownOptionError(
                f"{spec.name}: got an unexpected keyword argument {unknown[0]!r} (unknown option(s) {unknown} "
                f"for {spec.name}; allowed options: {sorted(names)})"
            )
        return cls(**options)

    def params(self) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def option_names(cls) -> list:
        return [f.name for f in dataclasses.fields(cls)]

    @classmethod
    def option_help(cls) -> dict:
        """``{option: help}`` of every option declared with `option` (``help=``); options declared
        without it are left out."""
        return {f.name: f.metadata[HELP] for f in dataclasses.fields(cls) if f.metadata.get(HELP)}


#: the key of an option's help text in its dataclass field's ``metadata`` (`option`)
HELP = "help"


def option(default: Any, help: str) -> Any:
    """A rule option of a game's ``Rules`` dataclass, its default and its help side by side::

        @dataclass(frozen=True)
        class MyRules(Rules):
            num_players: int = option(2, "2..4.")
            target: int = option(100, "the game ends when a score reaches it.")

    The help text (backticks allowed, shown as plain text) is what the ``--option`` flags of the
    commands (``cardgym play --help``, ``cardgym train --help``) and the web form's option list say. It is ``dataclasses.field(default=default,
    metadata={"help": help})``; a default must be immutable (a number, text, ``None``, a tuple)."""
    if not isinstance(help, str) or not help.strip():
        raise TypeError(f"option(): help must be a non-empty str describing the option, got {help!r}")
    if isinstance(default, (list, dict, set)):
        raise TypeError(f"option(): the default must be immutable (a number, text, None or a tuple), "
                        f"got a {type(default).__name__} {default!r}")
    return dataclasses.field(default=default, metadata={HELP: help.strip()})


#: largest value of an integer option: the kernels' parameter vector is int32
INT_OPTION_MAX = 2**31 - 1


def coerce_option(value: Any) -> Any:
    """``value`` as a plain Python scalar where it is a numpy (or other ``__index__``) scalar.

    ``np.bool_`` -> ``bool``; numpy integers of any width and objects with ``__index__`` (not bools,
    floats or strings) -> ``int`` via ``operator.index``; ``np.str_`` -> ``str``. Anything else is
    returned unchanged (the rules' checks then refuse what does not fit)."""
    if value is None or type(value) in (int, bool, str):
        return value
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, (float, complex, np.floating, np.complexfloating, bytes)):
        return value
    if isinstance(value, np.ndarray) and value.ndim > 0:
        return value
    try:
        return operator.index(value)
    except TypeError:
        return value


def check_int(name: str, value: Any, lo: int, hi: int | None = None, allow_none: bool = False):
    """``value`` must be a Python int (see `coerce_option`) in ``lo..hi`` (``hi`` defaults to
    `INT_OPTION_MAX`, the kernels' int32 parameter range)."""
    if value is None and allow_none:
        return
    if hi is None:
        hi = INT_OPTION_MAX
    if type(value) is not int:
        raise ValueError(
            f"option {name} must be an integer{' or None' if allow_none else ''} in {lo}..{hi}, got {value!r}"
            f" ({type(value).__name__})"
        )
    if value < lo or value > hi:
        raise ValueError(f"option {name}={value} is out of range; allowed: {lo}..{hi}")


def check_choice(name: str, value: Any, allowed: Iterable):
    allowed = list(allowed)
    for a in allowed:
        if type(a) is type(value) and a == value:
            return
    raise ValueError(f"option {name}={value!r} is not allowed; allowed values: {allowed}")


def check_bool(name: str, value: Any):
    if type(value) is not bool:
        raise ValueError(f"option {name} must be True or False, got {value!r}")


REWARD_CODES = {"win": 0, "score": 1}
