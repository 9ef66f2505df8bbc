"""What ``reset()`` takes, for every env layer: seeds (checked, drawn from the OS for the first
seedless reset, then from the game's own generator) and the reset options (a stacked deck)."""

from __future__ import annotations

import warnings

import numpy as np

from cardgym.core.contract.game import GameSpec

RESET_OPTIONS = ("deck",)


def entropy_seed() -> int:
    """A fresh seed from the operating system, for the first seedless reset."""
    return int(np.random.SeedSequence().entropy % (2**63))


def check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer or None, got {seed!r}")
    return int(seed) % (2**63)


def reset_seed(seed, started: bool, c, states) -> int:
    """The seed of a one-game reset: ``seed`` checked if given; else, after the first reset, a seed
    drawn from the game's own generator (``c.seedless``), and the first time a fresh OS seed."""
    if seed is not None:
        return check_seed(seed)
    if started:
        return int(c.seedless(states, 0))
    return entropy_seed()


def parse_reset_options(game: GameSpec, options, who: str):
    """The stacked deck from ``reset(options=...)`` (or an empty one). Unknown keys warn."""
    if options is None:
        return np.empty(0, np.int8)
    if not isinstance(options, dict):
        raise ValueError(f"{who}.reset(options=...) must be a dict, got {type(options).__name__}")
    unknown = sorted(set(options) - set(RESET_OPTIONS))
    if unknown:
        warnings.warn(
            f"{who}.reset ignores unknown option(s) {unknown}; known options: {list(RESET_OPTIONS)}",
            stacklevel=3,
        )
    if options.get("deck") is None:
        return np.empty(0, np.int8)
    return game.check_deck(options["deck"])
