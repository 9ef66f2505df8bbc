"""Shared build piles of Skip-Bo and Skip-Bo Junior (compiled).

A build pile is row ``b`` of an int8 array ``builds[pile, :]`` (bottom first). ``heights[pile]`` is
its logical height (how many values have been played on it: it fixes the next value needed) and
``counts[pile]`` how many cards physically lie on it (smaller than the height only after
`take_under_tops` recycled the cards under a top card). Wild cards (code 0) stay wilds on the pile:
they keep their code so that recycled cards come back as the cards they really are. A pile runs from
``start`` in steps of ``step`` (``+1`` from 1, or ``-1`` from 12 in Skip-Bo's two-up-two-down variant)
and is complete at ``length`` cards (12 in Skip-Bo, 10 in Junior).

What a pile needs next is `need`, and `pile_need` for pile ``b`` under a direction code (`ASCENDING`,
or `TWO_UP_TWO_DOWN`: piles 2 and 3 count down from ``top``): the kernels, the encoders, the text and
the pictures of both games all ask these two. `recycle` and `recyclable` make a new draw pile from the
completed stack (or the cards under the build-pile tops) of a record with the fields both games share
(``draw``, ``draw_len``, ``done``, ``done_len``, ``builds``, ``bcounts``).
"""

from __future__ import annotations

from numba import njit

from ...kit import refill_from

WILD = 0
#: build-direction codes (Skip-Bo's ``build_directions`` option; Junior's piles are all ascending)
ASCENDING, TWO_UP_TWO_DOWN = 0, 1


@njit(cache=True)
def need(height, start, step):
    """The value a pile of ``height`` cards needs next."""
    return start + step * height


@njit(cache=True)
def pile_start(directions, b, top):
    """First value of build pile ``b``: ``top`` for the descending piles 2 and 3 of two-up-two-down."""
    if directions == TWO_UP_TWO_DOWN and b >= 2:
        return top
    return 1


@njit(cache=True)
def pile_step(directions, b):
    """+1 for an ascending build pile ``b``, -1 for a descending one."""
    if directions == TWO_UP_TWO_DOWN and b >= 2:
        return -1
    return 1


@njit(cache=True)
def pile_need(heights, b, directions, top):
    """The value build pile ``b`` needs next (``heights``: every pile's height). The same as
    ``need(heights[b], pile_start(...), pile_step(...))``, without two more compiled calls."""
    if directions == TWO_UP_TWO_DOWN and b >= 2:
        return need(heights[b], top, -1)
    return need(heights[b], 1, 1)


def needs(record, directions: int, top: int) -> list:
    """The value every build pile of ``record`` needs next, as Python ints (text, pictures, dicts)."""
    heights = record["heights"]
    return [int(pile_need(heights, b, directions, top)) for b in range(heights.shape[0])]


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


@njit(cache=True)
def recyclable(s, recycle_builds):
    """Could a new draw pile be made now: a completed stack to shuffle, or (``recycle_builds``) cards
    under a build pile's top card?"""
    if s.done_len > 0:
        return True
    if recycle_builds:
        for b in range(s.bcounts.shape[0]):
            if s.bcounts[b] > 1:
                return True
    return False


@njit(cache=True)
def recycle(s, recycle_builds):
    """The draw pile of record ``s`` is empty: shuffle the completed stack into a new one or, when it is
    empty too and ``recycle_builds`` is set, the cards under each build pile's top card. Returns how many
    cards the new draw pile holds (0: nothing to recycle); they are ``s.done[:count]`` too (shuffled)."""
    m = s.done_len
    if m == 0 and recycle_builds:
        m = take_under_tops(s.builds, s.bcounts, s.done, 0)  # the completed stack is empty: use it
    if m > 0:
        s.draw_len = refill_from(s, s.draw, 0, s.done, m)
        s.done_len = 0
    return m
