"""Crazy Eights with a WORLD that pins the draw pile's top card (the broken piece of this mutant)."""

from __future__ import annotations

from numba import njit

from cardgym.kit import Hidden
from crazy_eights.observe import ENCODERS, WORLD as _WORLD, resample_seen, state_size  # noqa: F401


@njit(cache=True)
def pin_top(t, seat, g, buf):
    """Broken: re-deals the unseen cards, then puts the true top card of the draw pile back on top."""
    n = t.draw_len
    if n == 0:
        resample_seen(t, seat, g, buf)
        return
    c = t.draw[n - 1]
    resample_seen(t, seat, g, buf)
    for i in range(n):
        if t.draw[i] == c:
            t.draw[i] = t.draw[n - 1]
            t.draw[n - 1] = c
            return
    for j in range(t.num_players):
        if t.hand[j, c]:
            t.hand[j, c] = 0
            t.hand[j, t.draw[n - 1]] = 1
            t.draw[n - 1] = c
            return


WORLD = Hidden(resample=pin_top, positions=_WORLD.positions, counts=_WORLD.counts, seen=_WORLD.seen)
