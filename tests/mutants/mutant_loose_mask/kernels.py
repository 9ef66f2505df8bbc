"""Crazy Eights whose mask allows an illegal move (the broken piece of this mutant)."""

from __future__ import annotations

from numba import njit

from crazy_eights.kernels import apply, reset, state_vector  # noqa: F401
from crazy_eights.kernels import legal as _legal
from crazy_eights.rules import NAME_SUIT, PH_SUIT


@njit(cache=True)
def legal(s, p, mask):
    """Broken: naming a suit is offered while a card is to be played."""
    _legal(s, p, mask)
    if s.status == 0 and s.phase != PH_SUIT:
        mask[NAME_SUIT] = 1
