"""Skip-Bo Junior observation encoders: the flat "vector" (compiled) and the structured "dict".

Everything is face up in Junior but the stocks under their top card and the draw pile, so every seat
sees the same table; seats are relative to the observer (index 0 = the observer, then the next seats in
turn order; per-player blocks are player-major).

Every flat vector is written through its `Layout` table (``VECTOR``, and ``STATE`` for the
full-information vector that ``kernels.state_vector`` writes): the offsets, the documented fields, the
bounds and the sizes all come from it. `WORLD` re-deals what nobody can see.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...kit import DictEncoder, Hidden, Layout, Slot, offset, shuffled_pool, top
from .._shared.builds import ASCENDING, pile_need
from .rules import DECK_SIZE, NUM_CODES, NUM_PILES, NUM_STACKS, TOP


def _stock_size(rules) -> float:
    return rules.stock_size


#: the "vector" observation, in order (sizes: per relative seat, fixed)
VECTOR = Layout(
    Slot("stock_top", 11, 0, 0, 1,
         "one-hot code (0 = wild, 1..10) of each player's stock top; all 0 once a stock is empty"),
    Slot("stock_size", 1, 0, 0, _stock_size, "cards left in each player's stock"),
    Slot("stack_top", 33, 0, 0, 1,
         "per player, per hand stack 0..2: one-hot code of the top card (all 0 if the stack is empty)"),
    Slot("stack_under", 33, 0, 0, 16, "per player, per hand stack 0..2: count of each code 0..10 under the top card"),
    Slot("build_next", 0, 40, 0, 1, "per build pile 0..3: one-hot of the value it takes next, 1..10"),
    Slot("build_height", 0, 4, 0, 9, "per build pile: value reached (0 = empty pile)"),
    Slot("hidden_counts", 0, 11, 0, 16, "count of each code nobody can see (draw pile + every stock under its top)"),
    Slot("draw_size", 0, 1, 0, DECK_SIZE, "cards in the draw pile"),
    Slot("completed_size", 0, 1, 0, DECK_SIZE, "cards in the completed stack (finished build piles)"),
)

#: the full-information ``state()`` vector: seat 0's observation (absolute seats), then hidden cards
STATE = VECTOR + Layout(
    Slot("current", 1, 0, 0, 1, "one-hot seat to act (all 0 once the episode is over)"),
    Slot("stock_hidden", 11, 0, 0, 16, "per seat: count of each code under the stock top"),
    Slot("stock_next", 11, 0, 0, 1, "per seat: one-hot code of the card under the stock top"),
    Slot("draw_next", 0, 33, 0, 1, "one-hot codes of the next three cards of the draw pile"),
)


#: rules -> the size of the state vector
state_size = STATE.size_of


O_STOCK_TOP = VECTOR.at("stock_top")
O_STOCK_SIZE = VECTOR.at("stock_size")
O_STACK_TOP = VECTOR.at("stack_top")
O_STACK_UNDER = VECTOR.at("stack_under")
O_BUILD_NEXT = VECTOR.at("build_next")
O_BUILD_HEIGHT = VECTOR.at("build_height")
O_HIDDEN = VECTOR.at("hidden_counts")
O_DRAW_SIZE = VECTOR.at("draw_size")
O_COMPLETED_SIZE = VECTOR.at("completed_size")


@njit(cache=True)
def observe_vector(s, p, seat, out):
    n = int(s.num_players)  # int: offsets overflow int8 in plain numpy (NUMBA_DISABLE_JIT)
    for i in range(out.shape[0]):
        out[i] = 0.0
    o_top = offset(O_STOCK_TOP, n)
    o_size = offset(O_STOCK_SIZE, n)
    o_stack_top = offset(O_STACK_TOP, n)
    o_under = offset(O_STACK_UNDER, n)
    for r in range(n):
        j = seat + r
        if j >= n:
            j -= n
        c = int(top(s.stock[j], s.stock_len[j]))
        if c >= 0:
            out[o_top + 11 * r + c] = 1.0
        out[o_size + r] = s.stock_len[j]
        for k in range(NUM_STACKS):
            base = 33 * r + 11 * k
            c = int(top(s.stacks[j, k], s.stack_len[j, k]))
            if c >= 0:
                out[o_stack_top + base + c] = 1.0
                if s.stack_len[j, k] > 1:
                    for v in range(NUM_CODES):
                        out[o_under + base + v] = s.stack_under[j, k, v]
    o_next = offset(O_BUILD_NEXT, n)
    o_height = offset(O_BUILD_HEIGHT, n)
    for b in range(NUM_PILES):
        out[o_next + 10 * b + int(pile_need(s.heights, b, ASCENDING, TOP)) - 1] = 1.0
        out[o_height + b] = s.heights[b]
    o_hidden = offset(O_HIDDEN, n)
    for v in range(NUM_CODES):
        out[o_hidden + v] = s.hidden[v]
    out[offset(O_DRAW_SIZE, n)] = s.draw_len
    out[offset(O_COMPLETED_SIZE, n)] = s.done_len


# -- dict encoder -----------------------------------------------------------------------------


def dict_space(rules):
    from gymnasium import spaces

    n = rules.num_players
    i16 = np.int16
    return spaces.Dict(
        {
            "stock_top": spaces.Box(-1, 10, (n,), i16),
            "stock_size": spaces.Box(0, rules.stock_size, (n,), i16),
            "stack_top": spaces.Box(-1, 10, (n, NUM_STACKS), i16),
            "stack_size": spaces.Box(0, DECK_SIZE, (n, NUM_STACKS), i16),
            "stack_under": spaces.Box(0, 16, (n, NUM_STACKS, NUM_CODES), i16),
            "build_height": spaces.Box(0, 9, (NUM_PILES,), i16),
            "hidden_counts": spaces.Box(0, 16, (NUM_CODES,), i16),
            "draw_size": spaces.Box(0, DECK_SIZE, (1,), i16),
            "completed_size": spaces.Box(0, DECK_SIZE, (1,), i16),
        }
    )


def dict_encode(record, rules, seat) -> dict:
    n = int(record["num_players"])
    order = [(seat + r) % n for r in range(n)]
    stock_len = record["stock_len"]
    stock = record["stock"]
    stack_len = record["stack_len"]
    stacks = record["stacks"]
    out = {
        "stock_top": np.array(
            [stock[j, stock_len[j] - 1] if stock_len[j] > 0 else -1 for j in order], np.int16),
        "stock_size": np.array([stock_len[j] for j in order], np.int16),
        "stack_top": np.array(
            [[stacks[j, k, stack_len[j, k] - 1] if stack_len[j, k] > 0 else -1 for k in range(NUM_STACKS)]
             for j in order], np.int16),
        "stack_size": np.array([stack_len[j] for j in order], np.int16).reshape(n, NUM_STACKS),
        "stack_under": np.array(record["stack_under"][order], np.int16),
        "build_height": np.array(record["heights"], np.int16),
        "hidden_counts": np.array(record["hidden"], np.int16),
        "draw_size": np.array([record["draw_len"]], np.int16),
        "completed_size": np.array([record["done_len"]], np.int16),
    }
    return out




ENCODERS = {
    "vector": VECTOR.encoder(
        observe_vector,
        doc="flat float32: stock tops and sizes, every hand stack (top + counts beneath), build piles, "
            "hidden-card counts, draw and completed sizes; seated relative to the observer",
    ),
    "dict": DictEncoder(
        "dict", dict_space, dict_encode,
        "the same information as 'vector' as int16 arrays (codes, -1 = no card)",
    ),
}


# -- what nobody sees -------------------------------------------------------------------------------


# -- the re-deal of what a seat has not seen (sample_world, the search bot) --------------------


@njit(cache=True)
def _deal_back(s, buf):
    """Lay the shuffled hidden cards ``buf`` back into record ``s``: the draw pile first, then every
    stock under its top, seat by seat."""
    m = 0
    for i in range(s.draw_len):
        s.draw[i] = buf[m]
        m += 1
    for j in range(s.num_players):
        for i in range(s.stock_len[j] - 1):
            s.stock[j, i] = buf[m]
            m += 1


@njit(cache=True)
def resample_seen(t, seat, g, buf):
    """Re-deal what nobody sees in record ``t`` (draw pile, every stock under its top) with the game
    generator of record ``g`` (the same for every ``seat``). The pool is rebuilt from its counts first, so
    the result depends only on which cards are hidden, never on where they were."""
    counts = np.zeros(NUM_CODES, np.int64)
    for i in range(t.draw_len):
        counts[t.draw[i]] += 1
    for j in range(t.num_players):
        for i in range(t.stock_len[j] - 1):
            counts[t.stock[j, i]] += 1
    shuffled_pool(counts, 0, g, buf)
    _deal_back(t, buf)


#: what Skip-Bo Junior hides and how `cardgym.core.contract.worlds.sample_world` re-deals it
#: (docs/hidden_information.md)
WORLD = Hidden(
    resample=resample_seen,
    positions=("stock", "draw"),
    seen="every stock's top, every hand stack (all of it), the build piles and the completed pile; no seat "
    "sees any stock under its top or the draw pile, so every seat holds the same information",
)
