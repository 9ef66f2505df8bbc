"""Crazy Eights whose apply loses a card (the broken piece of this mutant)."""

from __future__ import annotations

from numba import njit

from crazy_eights.kernels import legal, reset, state_vector  # noqa: F401
from crazy_eights.kernels import apply as _apply
from crazy_eights.rules import DRAW


@njit(cache=True)
def apply(s, p, action):
    """Broken: a draw also drops the next card of the draw pile."""
    _apply(s, p, action)
    if action == DRAW and s.draw_len > 1:
        s.draw_len -= 1
