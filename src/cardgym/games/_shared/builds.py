"""Shared build piles of Skip-Bo and Skip-Bo Junior (compiled).

A build pile is row ``b`` of an int8 array ``builds[pile, :]`` (bottom first). ``heights[pile]`` is
its logical height (how many values have been played on it: it fixes the next value needed) and
``counts[pile]`` how many cards physically lie on it (smaller than the height only after
`take_under_tops` recycled the cards under a top card). Wild cards (code 0) stay wilds on the pile: they keep their code so that recycled
cards come back as the cards they really are. A pile runs from ``start`` in steps of ``step``
(``+1`` from 1, or ``-1`` from 12 in Skip-Bo's two-up-two-down variant) and is complete at
``length`` cards (12 in Skip-Bo, 10 in Junior).
"""

from __future__ import annotations

from numba import njit

WILD = 0


@njit(cache=True)
def need(height, start, step):
    """The value a pile of ``height`` cards needs next."""
    return start + step * height


@njit(cache=True)
def accepts(card, height, start, step):
    """Can ``card`` (code; 0 = wild) go on a pile of ``height`` cards?"""
    return card == WILD or card == start + step * height


@njit(cache=True)
def play(builds, heights, counts, pile, card, length, done, done_len):
    """Put ``card`` on ``pile``. A pile reaching height ``length`` moves its cards to the ``done``
    stack (appended bottom first) and its place is free again. Returns (completed?, new done_len)."""
    c = counts[pile]
    builds[pile, c] = card
    c += 1
    h = heights[pile] + 1
    if h == length:
        for k in range(c):
            done[done_len + k] = builds[pile, k]
        heights[pile] = 0
        counts[pile] = 0
        return True, done_len + c
    heights[pile] = h
    counts[pile] = c
    return False, done_len


@njit(cache=True)
def take_under_tops(builds, counts, out, out_len):
    """Move every card under the top card of each build pile to ``out``; the top card stays as the
    pile's only card and the pile's height (its value) is unchanged. Returns the new ``out_len``."""
    for b in range(counts.shape[0]):
        c = counts[b]
        if c > 1:
            for k in range(c - 1):
                out[out_len] = builds[b, k]
                out_len += 1
            builds[b, 0] = builds[b, c - 1]
            counts[b] = 1
    return out_len
