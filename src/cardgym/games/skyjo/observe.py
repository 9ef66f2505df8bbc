"""Skyjo observations: every encoder, the full state's size and what a seat cannot see.

- ``"vector"``: the compiled kernel ``kernels.observe_vector``, laid out by the `Field` table
  `vector_layout` (the docs show it; a test holds it against the kernel).
- ``"dict"``: `dict_encode` into the `dict_space` of readable grids and counters.

`state_size` is the length of ``kernels.state_vector``: the vector observation seen from seat 0 with
every face-down card shown, then the top of the draw pile. `WORLD` re-deals the face-down cards and
the draw pile.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...kit import DictEncoder, Field, FlatEncoder, Hidden, shuffled_pool
from .kernels import observe_vector
from .rules import (
    COLS,
    DECK_COUNTS,
    DECK_SIZE,
    HIDDEN,
    MIN_VALUE,
    NUM_VALUES,
    PH_DRAWN,
    PH_TAKEN,
    ROWS,
    SLOTS,
    UP,
)

#: ``state_vector``'s last field: the top of the draw pile (one-hot value -2..12, then 'empty')
DRAW_TOP = 16

# dict encoder sentinels
D_HIDDEN = 13
D_REMOVED = 14
D_NONE = 13


def vector_layout(rules) -> list:
    n = rules.num_players
    fields = [
        Field(
            "grids",
            n * SLOTS * 17,
            0.0,
            1.0,
            "for each seat (0 = observer, then the next seats in turn order), each position p = 4*row+col "
            "(0..11), 17 one-hot entries: [face down, removed, value -2, ..., value 12]",
        ),
        Field("discard_top", 16, 0.0, 1.0, "top of the discard pile: one-hot value -2..12, then 'empty'"),
        Field(
            "held",
            16,
            0.0,
            1.0,
            "card held by the seat to act after drawing/taking (public): one-hot value -2..12, then 'none'",
        ),
        Field("phase", 5, 0.0, 1.0, "one-hot: setup reveals, start of turn, holding a drawn card, "
              "holding the taken discard, episode over"),
        Field("current", n, 0.0, 1.0, "seat to act, relative to the observer (all 0 once over)"),
        Field("goer", n, 0.0, 1.0, "relative seat that ended the round (final lap running); all 0 if none"),
        Field("round_scores", n, -1.0, 3.0, "points of the last finished round by relative seat / 100"),
        Field("totals", n, -10.0, 10.0, "game totals by relative seat / 100, clipped to [-10, 10]"),
        Field("round", 1, 0.0, 1.0, "rounds finished / 20, clipped to 1"),
        Field("draw_size", 1, 0.0, 1.0, "cards in the draw pile / 150"),
        Field(
            "unseen",
            NUM_VALUES,
            0.0,
            1.0,
            "cards of each value -2..12 not face up anywhere (deck minus face-up grid cards, the whole "
            "discard pile and the held card) / 15; the same for every seat (everything face up is public)",
        ),
    ]
    return fields


def state_size(rules) -> int:
    """Length of ``kernels.state_vector``: the vector observation's fields, then the draw pile's top."""
    return sum(f.size for f in vector_layout(rules)) + DRAW_TOP


# ----------------------------------------------------------------------------------------------- dict


def dict_space(rules):
    from gymnasium import spaces

    n = rules.num_players
    return spaces.Dict(
        {
            "grids": spaces.Box(-2, 14, shape=(n, ROWS, COLS), dtype=np.int8),
            "discard_top": spaces.Box(-2, 13, shape=(), dtype=np.int8),
            "held": spaces.Box(-2, 13, shape=(), dtype=np.int8),
            "phase": spaces.Discrete(5),
            "current": spaces.Discrete(n + 1),
            "goer": spaces.Discrete(n + 1),
            "round_scores": spaces.Box(-10_000, 10_000, shape=(n,), dtype=np.int32),
            "totals": spaces.Box(-(2**30), 2**30, shape=(n,), dtype=np.int32),
            "round": spaces.Box(0, 2**30, shape=(), dtype=np.int32),
            "draw_size": spaces.Box(0, 150, shape=(), dtype=np.int32),
            "discard_size": spaces.Box(0, 150, shape=(), dtype=np.int32),
            "unseen": spaces.Box(0, 15, shape=(NUM_VALUES,), dtype=np.int32),
        }
    )


def dict_encode(r, rules, seat) -> dict:
    """Readable observation of ``seat``. Grids are (seat, row, col), seats relative to the observer;
    a slot is its value -2..12 if face up, 13 if face down, 14 if removed. ``discard_top``/``held``:
    13 = empty/none. ``current``/``goer``: relative seat, n = none."""
    n = rules.num_players
    order = [(seat + k) % n for k in range(n)]
    up = np.asarray(r["up"])[order]
    grid = np.asarray(r["grid"])[order]
    g = np.where(up == UP, grid, np.where(up == HIDDEN, D_HIDDEN, D_REMOVED)).astype(np.int8)
    dl = int(r["discard_len"])
    ph = int(r["phase"])
    running = int(r["status"]) == 0
    goer = int(r["goer"])
    seen = np.asarray(r["seen"]).astype(np.int32)
    return {
        "grids": g.reshape(n, ROWS, COLS),
        "discard_top": np.array(r["discard"][dl - 1] if dl > 0 else D_NONE, np.int8),
        "held": np.array(r["held"] if ph in (PH_DRAWN, PH_TAKEN) else D_NONE, np.int8),
        "phase": ph,
        "current": (int(r["current"]) - seat) % n if running else n,
        "goer": (goer - seat) % n if (goer >= 0 and running) else n,
        "round_scores": np.asarray(r["scores"])[order].astype(np.int32),
        "totals": np.asarray(r["totals"])[order].astype(np.int32),
        "round": np.array(r["round_no"], np.int32),
        "draw_size": np.array(r["draw_len"], np.int32),
        "discard_size": np.array(dl, np.int32),
        "unseen": (DECK_COUNTS.astype(np.int32) - seen),
    }


ENCODERS = {
    "vector": FlatEncoder(
        "vector",
        vector_layout,
        kernel=observe_vector,
        doc="one-hot grids of every seat (observer first), discard top, held card, phase, seats, "
        "scores, draw-pile size and unseen card counts; see docs/skyjo.md",
    ),
    "dict": DictEncoder(
        "dict",
        dict_space,
        dict_encode,
        doc="readable grids (value, 13 = face down, 14 = removed), piles, scores; see docs/skyjo.md",
    ),
}


# -- the re-deal of what a seat has not seen (sample_world, the search bot) --------------------


@njit(cache=True)
def resample_seen(t, seat, g, buf):
    """Re-deal what nobody sees in record ``t`` (face-down grid cards of every seat, the draw pile) with
    the game generator of record ``g`` (the same for every ``seat``), pooled by their counts
    (`shuffled_pool`)."""
    n = t.num_players
    counts = np.zeros(NUM_VALUES, np.int64)
    for j in range(n):
        for pos in range(SLOTS):
            if t.up[j, pos] == HIDDEN:
                counts[t.grid[j, pos] - MIN_VALUE] += 1
    for i in range(t.draw_len):
        counts[t.draw[i] - MIN_VALUE] += 1
    shuffled_pool(counts, MIN_VALUE, g, buf)
    m = 0
    for j in range(n):
        for pos in range(SLOTS):
            if t.up[j, pos] == HIDDEN:
                t.grid[j, pos] = buf[m]
                m += 1
    for i in range(t.draw_len):
        t.draw[i] = buf[m]
        m += 1
    for i in range(DECK_SIZE):  # the scratch pile holds the round's deal order: never carry it over
        t.buf[i] = 0


#: what Skyjo hides and how `cardgym.core.contract.worlds.sample_world` re-deals it (docs/hidden_information.md)
WORLD = Hidden(
    resample=resample_seen,
    positions=("grid", "draw"),
    seen="every face-up grid card, the whole discard pile, the held card; nobody sees a face-down card "
    "(its own included) or the draw pile, so every seat holds the same information",
)
