"""Crazy Eights observations: the "vector" encoder (compiled) and the "dict" encoder, and what a seat
cannot see (`WORLD`).

A seat sees its own hand, the whole discard pile (every card in it was played face up), the suit to
follow, how many cards each hand and the draw pile hold, and who is to act. It never sees another
hand or the order of the draw pile.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardgym.kit import DictEncoder, Hidden, Layout, Slot, offset, shuffled_pool

from .rules import DECK_SIZE, NUM_SUITS, PH_SUIT

#: the "vector" observation, in order; seats are relative to the observer (0 = the observer). The
#: kernel's offsets, the documented fields and the size all come from this one table (`cardgym.kit.Layout`).
VECTOR = Layout(
    Slot("hand", 0, DECK_SIZE, 0, 1, "1 for each card (code suit*8+rank) in the observer's hand"),
    Slot("top", 0, DECK_SIZE, 0, 1, "the discard pile's top card, one-hot by code"),
    Slot("discards", 0, DECK_SIZE, 0, 1, "every card in the discard pile (all were played face up)"),
    Slot("suit", 0, NUM_SUITS, 0, 1, "the suit to follow, one-hot (clubs, diamonds, hearts, spades)"),
    Slot("naming", 0, 1, 0, 1, "1 when the seat to act must name a suit (it has just played an eight)"),
    Slot("draw_size", 0, 1, 0, DECK_SIZE, "cards in the draw pile"),
    Slot("hand_sizes", 1, 0, 0, DECK_SIZE, "cards in each hand, observer first, then in turn order"),
    Slot("to_act", 1, 0, 0, 1, "the seat to act, one-hot relative to the observer (zeros once over)"),
)
O_HAND, O_TOP, O_DISCARDS, O_SUIT = (VECTOR.at(k) for k in ("hand", "top", "discards", "suit"))
O_NAMING, O_DRAW, O_SIZES, O_TO_ACT = (VECTOR.at(k) for k in ("naming", "draw_size", "hand_sizes", "to_act"))
SIZE = VECTOR.total


@njit(cache=True)
def obs_size(n):
    return offset(SIZE, n)


@njit(cache=True)
def observe_vector(s, p, seat, out):
    n = int(s.num_players)
    for i in range(out.shape[0]):
        out[i] = 0.0
    o_hand, o_top, o_discards = offset(O_HAND, n), offset(O_TOP, n), offset(O_DISCARDS, n)
    for c in range(DECK_SIZE):
        if s.hand[seat, c]:
            out[o_hand + c] = 1.0
    dl = int(s.discard_len)
    for k in range(dl):
        out[o_discards + int(s.discard[k])] = 1.0
    if dl > 0:
        out[o_top + int(s.discard[dl - 1])] = 1.0
    out[offset(O_SUIT, n) + int(s.suit)] = 1.0
    if s.status == 0 and s.phase == PH_SUIT:
        out[offset(O_NAMING, n)] = 1.0
    out[offset(O_DRAW, n)] = s.draw_len
    o_sizes, o_to_act = offset(O_SIZES, n), offset(O_TO_ACT, n)
    for r in range(n):
        j = (seat + r) % n
        out[o_sizes + r] = s.hand_len[j]
        if s.status == 0 and j == s.current:
            out[o_to_act + r] = 1.0


def state_size(rules) -> int:
    """Length of the full-information ``state_vector`` (kernels.py)."""
    n = rules.num_players
    return obs_size(n) + DECK_SIZE * n + DECK_SIZE


def dict_space(rules):
    from gymnasium import spaces

    n = rules.num_players
    return spaces.Dict({
        "hand": spaces.MultiBinary(DECK_SIZE),
        "top": spaces.Discrete(DECK_SIZE),
        "suit": spaces.Discrete(NUM_SUITS),
        "naming": spaces.Discrete(2),
        "draw_size": spaces.Discrete(DECK_SIZE + 1),
        "discard_size": spaces.Discrete(DECK_SIZE + 1),
        "hand_sizes": spaces.Box(0, DECK_SIZE, (n,), np.int64),
    })


def dict_encode(r, rules, seat) -> dict:
    n = rules.num_players
    dl = int(r["discard_len"])
    return {
        "hand": np.array(r["hand"][seat], np.int8),  # a copy: the record changes every step
        "top": int(r["discard"][dl - 1]),
        "suit": int(r["suit"]),
        "naming": int(r["status"] == 0 and r["phase"] == PH_SUIT),
        "draw_size": int(r["draw_len"]),
        "discard_size": dl,
        "hand_sizes": np.array([int(r["hand_len"][(seat + k) % n]) for k in range(n)], np.int64),
    }


ENCODERS = {
    "vector": VECTOR.encoder(observe_vector,
                             doc="own hand, discard top and pile, suit to follow, hand and pile sizes"),
    "dict": DictEncoder("dict", dict_space, dict_encode,
                        doc="own hand (by card code), discard top, suit, pile sizes, hand sizes"),
}


# -- the re-deal of what a seat has not seen (sample_world, the search bot) --------------------


@njit(cache=True)
def resample_seen(t, seat, g, buf):
    """Re-deal in record ``t`` the cards ``seat`` cannot see (every other hand, the draw pile) with the
    game generator of record ``g``; every hand keeps its size. The pool is rebuilt from which cards are
    hidden, never from where they were."""
    counts = np.zeros(DECK_SIZE, np.int64)
    for j in range(t.num_players):
        if j != seat:
            for c in range(DECK_SIZE):
                if t.hand[j, c]:
                    counts[c] += 1
                    t.hand[j, c] = 0
    for i in range(t.draw_len):
        counts[t.draw[i]] += 1
    shuffled_pool(counts, 0, g, buf)
    m = 0
    for j in range(t.num_players):
        if j != seat:
            for _ in range(t.hand_len[j]):
                t.hand[j, buf[m]] = 1
                m += 1
    for i in range(t.draw_len):
        t.draw[i] = buf[m]
        m += 1


#: what Crazy Eights hides and how `cardgym.core.contract.worlds.sample_world` re-deals it
WORLD = Hidden(
    resample=resample_seen,
    positions=("draw",),
    counts=("hand",),
    seen="its own hand, the discard pile, the suit to follow and every pile's and hand's size; not the other "
    "hands or the draw pile",
)
