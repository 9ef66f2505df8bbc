"""Blackjack bots (numba), reading only what the seat to act sees."""

from __future__ import annotations

from numba import njit

from cardgym.core.rng import pick_legal

from .rules import HIT, STAND, hand_total


@njit(cache=True)
def bot_random(s, p, mask):
    """A uniformly random legal action."""
    return pick_legal(s, mask)


@njit(cache=True)
def bot_greedy(s, p, mask):
    """Hits below 17, stands on 17 or more (the dealer's own rule)."""
    j = s.current
    total = hand_total(s.hand[j], s.hand_len[j])[0]
    return HIT if mask[HIT] and total < 17 else STAND


BOTS = {"random": bot_random, "greedy": bot_greedy}
