"""Helpers shared by the scene builders."""

from __future__ import annotations

import numpy as np


def legal_mask(game, record, rules) -> np.ndarray:
    """The legal-action mask of the seat to act in ``record`` (the game's compiled ``legal``)."""
    states = game.new_states(1)
    states[0] = record
    mask = np.zeros(game.num_actions, np.int8)
    game.compiled().legal_one(states, 0, rules.params(), mask)
    return mask


def you(i: int, viewer) -> str:
    return " (you)" if viewer is not None and i == viewer else ""


def check_viewer(viewer, n: int):
    if viewer is None:
        return None
    if isinstance(viewer, bool) or not isinstance(viewer, (int, np.integer)) or not 0 <= int(viewer) < n:
        raise ValueError(f"viewer must be None (public view) or a seat 0..{n - 1}, got {viewer!r}")
    return int(viewer)
