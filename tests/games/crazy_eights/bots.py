"""Crazy Eights bots (numba). They read only what the seat to act sees: its hand, the discard pile,
the suit to follow."""

from __future__ import annotations

from numba import njit


from .kernels import rank_of, suit_of
from .rules import DECK_SIZE, DRAW, EIGHT, NAME_SUIT, NUM_SUITS, PH_SUIT


@njit(cache=True)
def bot_greedy(s, p, mask):
    """Names the suit it holds most of; plays the legal card of the suit it holds most of (the highest
    rank first), keeping eights for when nothing else goes; draws last."""
    seat = s.current
    counts = [0, 0, 0, 0]
    for c in range(DECK_SIZE):
        if s.hand[seat, c] and rank_of(c) != EIGHT:
            counts[suit_of(c)] += 1
    if s.phase == PH_SUIT:
        best = 0
        for k in range(1, NUM_SUITS):
            if counts[k] > counts[best]:
                best = k
        return NAME_SUIT + best
    best, score, eight = -1, -1, -1
    for c in range(DECK_SIZE):
        if not mask[c]:
            continue
        if rank_of(c) == EIGHT:
            eight = c
            continue
        sc = counts[suit_of(c)] * 8 + rank_of(c)
        if sc > score:
            best, score = c, sc
    if best >= 0:
        return best
    if eight >= 0:
        return eight
    return DRAW


BOTS = {"greedy": bot_greedy}  # after the core's "random" (bot 0)
