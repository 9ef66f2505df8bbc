"""Crazy Eights with a WORLD that re-deals nothing (the broken piece of this mutant)."""

from __future__ import annotations

from numba import njit

from cardgym.kit import Hidden
from crazy_eights.observe import ENCODERS, WORLD as _WORLD, state_size  # noqa: F401


@njit(cache=True)
def keep_all(t, seat, g, buf):
    """Broken: leaves every card where it is."""
    return


WORLD = Hidden(resample=keep_all, positions=_WORLD.positions, counts=_WORLD.counts, seen=_WORLD.seen)
