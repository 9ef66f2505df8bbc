"""Invariants shared by the games' state validators: the build piles of Skip-Bo and Skip-Bo Junior (a
pile of height ``h`` holds its top ``bcounts`` cards, each the value of its height or a wild) and the
stall counter of every game (`check_stall`), the stock / draw / completed pile lengths of the Skip-Bo
family (`check_pile_lengths`)."""

from __future__ import annotations

from typing import Callable

import numpy as np

from ...kit import all_in_range, bad, in_range


def check_build_piles(r, num_piles: int, top: int, wild: int, values: Callable[[int, int, int], np.ndarray]):
    """Check ``heights``, ``bcounts`` and ``builds`` of record ``r``: heights below ``top`` (a complete
    pile leaves), counts that fit the height, and every card the value ``values(pile, height, count)``
    gives at its place (bottom first) or ``wild``. Returns ``(heights, bcounts)`` as arrays."""
    heights = np.asarray(r["heights"])
    bcounts = np.asarray(r["bcounts"])
    all_in_range("heights", heights, 0, top - 1, f"(a pile of {top} is complete and leaves)")
    all_in_range("bcounts", bcounts, 0, top)
    for b in range(num_piles):
        h, c = int(heights[b]), int(bcounts[b])
        if not (c == 0 if h == 0 else 1 <= c <= h):
            raise bad("bcounts", c, f"does not fit build pile {b} of height {h} (0 on an empty pile, else "
                      "1..height)", b)
        cards = np.asarray(r["builds"][b, :c], np.int64)
        want = values(b, h, c)
        off = np.flatnonzero((cards != want) & (cards != wild))
        if off.size:
            k = int(off[0])
            raise bad("builds", cards[k], f"cannot lie at height {h - c + k + 1} of build pile {b} (it takes "
                      f"{int(want[k])} or a wild there)", (b, k))
    return heights, bcounts


def check_stall(r, rules, running: bool, key: str, turns: int) -> int:
    """The stall counter ``r[key]`` (turns in a row without progress): within 0..``turns`` and, while the
    game runs, below the ``stall_rounds * num_players`` turns that end it (no limit when
    ``stall_rounds`` is 0 or None). Returns the counter."""
    idle = in_range(key, r[key], 0, turns)
    limit = (rules.stall_rounds or 0) * rules.num_players
    if running and limit and idle >= limit:
        raise bad(key, idle, f"reaches stall_rounds*num_players={limit} in a running game")
    return idle


def check_pile_lengths(r, rules, deck_size: int):
    """Bounds of the Skip-Bo family's piles, checked before anything reads through them: each playing
    seat's stock within ``rules.stock_size``, the draw and completed piles within the deck. Returns
    (``stock_len`` as an array, ``draw_len``, ``done_len``)."""
    n = rules.num_players
    stock_len = np.asarray(r["stock_len"])
    all_in_range("stock_len", stock_len[:n], 0, rules.stock_size, f"(stock_size={rules.stock_size})")
    draw_len = in_range("draw_len", r["draw_len"], 0, deck_size)
    done_len = in_range("done_len", r["done_len"], 0, deck_size)
    return stock_len, draw_len, done_len
