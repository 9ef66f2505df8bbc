"""Build-pile invariants shared by Skip-Bo and Skip-Bo Junior (the state validators' part that is the
same rule in both games: a pile of height ``h`` holds its top ``bcounts`` cards, each the value of its
height or a wild)."""

from __future__ import annotations

from typing import Callable

import numpy as np

from ...core.invariants import all_in_range, bad


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
