"""Invariants shared by the games' state validators: the build piles of Skip-Bo and Skip-Bo Junior (a
pile of height ``h`` holds its top ``bcounts`` cards, each the value of its height or a wild) and the
stall counter of every game (`check_stall`)."""

from __future__ import annotations

from typing import Callable

import numpy as np

from ...core.invariants import all_in_range, bad, in_range


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
