"""Skip-Bo observation encoders: the flat "vector" (compiled) and the structured "dict".

Both show only what the observing seat may see: the observer's own hand; every stock's top card and
size; every discard pile (top card and the counts of every code in it: discard piles are open); the
build piles; the sizes of the draw pile and the completed stack; hand sizes. Hidden: the cards under the
stock tops (also the observer's own), the other players' hands, the draw pile's order and contents.

Seats are relative: index 0 = the observer, then the following seats in turn order.

Every flat vector is written through its `Layout` table (``VECTOR``, and ``STATE`` for the
full-information vector that ``kernels.state_vector`` writes): the offsets, the documented fields, the
bounds and the sizes all come from it. `WORLD` re-deals what a seat cannot see.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from numba import njit

from ...kit import RUNNING, DictEncoder, Hidden, Layout, Slot, offset, shuffled_pool
from .._shared.builds import needs, pile_need
from .rules import DECK_SIZE, NUM_CODES, NUM_DISCARDS, NUM_PILES, P_DIRECTIONS, P_TEAMS, TOP

CODE_DOC = "index 0 = wild, 1..12 = that value"


def _score_high(rules) -> float:
    return float((rules.match_target or 0) + 25 + 5 * DECK_SIZE)


def _stock_size(rules) -> float:
    return rules.stock_size


#: the "vector" observation, in order (sizes: per relative seat, fixed)
VECTOR = Layout(
    Slot("hand", 0, 13, 0, 5, f"own hand: number of cards of each code ({CODE_DOC})"),
    Slot("to_play", 1, 0, 0, 1, "one-hot relative seat of the player to act"),
    Slot("stock_top", 13, 0, 0, 1, f"per relative seat: one-hot stock top code ({CODE_DOC}); zeros = empty"),
    Slot("stock_size", 1, 0, 0, _stock_size, "per relative seat: cards left in the stock"),
    Slot("hand_size", 1, 0, 0, 5, "per relative seat: cards in hand"),
    Slot("partner", 1, 0, 0, 1, "per relative seat: 1 if that seat is the observer's partner (teams)"),
    Slot("discard_top", 4 * 13, 0, 0, 1,
         f"per relative seat, per discard pile 0..3: one-hot top code ({CODE_DOC}); zeros = empty pile"),
    Slot("discard_counts", 4 * 13, 0, 0, 18,
         f"per relative seat, per discard pile 0..3: number of cards of each code in the pile ({CODE_DOC})"),
    Slot("build_need", 0, 4 * 12, 0, 1, "per build pile 0..3: one-hot value needed next (index v-1 for value v)"),
    Slot("build_height", 0, 4, 0, 11, "per build pile 0..3: cards played on it so far (0 = empty)"),
    Slot("draw_size", 0, 1, 0, DECK_SIZE, "cards in the draw pile"),
    Slot("completed_size", 0, 1, 0, DECK_SIZE, "cards in the completed stack (waiting to be recycled)"),
    Slot("cover_pile", 0, 4, 0, 1, "turn phase: one-hot build pile whose wild must be covered now "
         "(wild_must_be_covered); all zeros = free play"),
    Slot("scores", 1, 0, 0, _score_high, "per relative seat: match total (0 without match_target)"),
)

#: one seat's block of the full-information state vector
SEAT_BLOCK = Layout(
    Slot("hand", 0, 13, 0, 5, f"hand: number of cards of each code ({CODE_DOC})"),
    Slot("stock_counts", 0, 13, 0, 18, "stock: number of cards of each code (also under the top)"),
    Slot("stock_top", 0, 13, 0, 1, "one-hot stock top code; zeros = empty"),
    Slot("stock_size", 0, 1, 0, _stock_size, "cards left in the stock"),
    Slot("discard_top", 0, 4 * 13, 0, 1, "per discard pile 0..3: one-hot top code; zeros = empty pile"),
    Slot("discard_counts", 0, 4 * 13, 0, 18, "per discard pile 0..3: number of cards of each code"),
)

#: the full-information ``state()`` vector (absolute seats), in order
STATE = Layout(
    Slot("seats", SEAT_BLOCK.total[1], 0, 0, DECK_SIZE,
         "per seat, in seat order: " + ", ".join(f"{s.name} ({s.fixed})" for s in SEAT_BLOCK.slots)),
    Slot("build_need", 0, 4 * 12, 0, 1, "per build pile 0..3: one-hot value needed next (index v-1 for value v)"),
    Slot("build_height", 0, 4, 0, 11, "per build pile 0..3: cards played on it so far"),
    Slot("draw_counts", 0, 13, 0, 18, f"draw pile: number of cards of each code ({CODE_DOC})"),
    Slot("draw_size", 0, 1, 0, DECK_SIZE, "cards in the draw pile"),
    Slot("completed_size", 0, 1, 0, DECK_SIZE, "cards in the completed stack"),
    Slot("cover_pile", 0, 4, 0, 1, "one-hot build pile whose wild must be covered now"),
    Slot("current", 1, 0, 0, 1, "one-hot seat to act (all 0 once the episode is over)"),
    Slot("totals", 1, 0, 0, _score_high, "per seat: match total"),
)


#: rules -> the size of the state vector
state_size = STATE.size_of


O_HAND = VECTOR.at("hand")
O_TO_PLAY = VECTOR.at("to_play")
O_STOCK_TOP = VECTOR.at("stock_top")
O_STOCK_SIZE = VECTOR.at("stock_size")
O_HAND_SIZE = VECTOR.at("hand_size")
O_PARTNER = VECTOR.at("partner")
O_DISCARD_TOP = VECTOR.at("discard_top")
O_DISCARD_COUNTS = VECTOR.at("discard_counts")
O_BUILD_NEED = VECTOR.at("build_need")
O_BUILD_HEIGHT = VECTOR.at("build_height")
O_DRAW_SIZE = VECTOR.at("draw_size")
O_COMPLETED_SIZE = VECTOR.at("completed_size")
O_COVER_PILE = VECTOR.at("cover_pile")
O_SCORES = VECTOR.at("scores")


@njit(cache=True)
def observe_vector(s, p, seat, out):
    n = int(s.num_players)  # int: offsets overflow int8 in plain numpy (NUMBA_DISABLE_JIT)
    out[:] = 0.0
    hand = s.hand
    stop = s.stop
    dtop = s.dtop
    stock_len = s.stock_len
    hand_len = s.hand_len
    disc_len = s.disc_len
    disc_cnt = s.disc_cnt
    totals = s.totals
    o_hand = offset(O_HAND, n)
    for c in range(NUM_CODES):
        out[o_hand + c] = hand[seat, c]
    o_play = offset(O_TO_PLAY, n)
    o_top = offset(O_STOCK_TOP, n)
    o_size = offset(O_STOCK_SIZE, n)
    o_hsize = offset(O_HAND_SIZE, n)
    o_partner = offset(O_PARTNER, n)
    o_dtop = offset(O_DISCARD_TOP, n)
    o_dcnt = offset(O_DISCARD_COUNTS, n)
    o_need = offset(O_BUILD_NEED, n)
    o_height = offset(O_BUILD_HEIGHT, n)
    o_scores = offset(O_SCORES, n)
    if s.status == RUNNING:
        out[o_play + (int(s.current) - seat + n) % n] = 1.0
    half = n // 2
    teams = p[P_TEAMS] != 0
    for r in range(n):
        i = seat + r
        if i >= n:
            i -= n
        t = int(stop[i])
        if t >= 0:
            out[o_top + r * 13 + t] = 1.0
        out[o_size + r] = stock_len[i]
        out[o_hsize + r] = hand_len[i]
        if teams and r == half:
            out[o_partner + r] = 1.0
        for d in range(NUM_DISCARDS):
            if disc_len[i, d] > 0:
                base = (r * 4 + d) * 13
                out[o_dtop + base + int(dtop[i, d])] = 1.0
                ob = o_dcnt + base
                for c in range(NUM_CODES):
                    out[ob + c] = disc_cnt[i, d, c]
        out[o_scores + r] = totals[i]
    directions = p[P_DIRECTIONS]
    for b in range(NUM_PILES):
        out[o_need + b * 12 + int(pile_need(s.heights, b, directions, TOP)) - 1] = 1.0
        out[o_height + b] = s.heights[b]
    out[offset(O_DRAW_SIZE, n)] = s.draw_len
    out[offset(O_COMPLETED_SIZE, n)] = s.done_len
    if s.cover >= 0:
        out[offset(O_COVER_PILE, n) + int(s.cover)] = 1.0


# ------------------------------------------------------------------------------------------- dict
def dict_space(rules) -> spaces.Dict:
    n = rules.num_players
    i16 = np.int16
    return spaces.Dict(
        {
            "hand": spaces.Box(0, 5, (13,), i16),
            "to_play": spaces.Box(-1, n - 1, (), i16),
            "stock_top": spaces.Box(-1, 12, (n,), i16),
            "stock_size": spaces.Box(0, rules.stock_size, (n,), i16),
            "hand_size": spaces.Box(0, 5, (n,), i16),
            "partner": spaces.Box(-1, n - 1, (), i16),
            "discard_top": spaces.Box(-1, 12, (n, 4), i16),
            "discard_counts": spaces.Box(0, 18, (n, 4, 13), i16),
            "build_need": spaces.Box(1, 12, (4,), i16),
            "build_height": spaces.Box(0, 11, (4,), i16),
            "draw_size": spaces.Box(0, DECK_SIZE, (), i16),
            "completed_size": spaces.Box(0, DECK_SIZE, (), i16),
            "cover_pile": spaces.Box(-1, 3, (), i16),
            "scores": spaces.Box(0, int(_score_high(rules)), (n,), np.int32),
        }
    )


def dict_encode(rec, rules, seat: int) -> dict:
    """Structured observation of ``seat`` (relative seats; codes: 0 wild, 1..12 values, -1 none)."""
    n = int(rec["num_players"])
    p = rules.params()
    order = [(seat + r) % n for r in range(n)]
    i16 = np.int16

    def top(arr, length):
        return int(arr[length - 1]) if length > 0 else -1

    dtop = np.full((n, 4), -1, i16)
    for r, i in enumerate(order):
        for d in range(NUM_DISCARDS):
            dtop[r, d] = top(rec["disc"][i, d], int(rec["disc_len"][i, d]))
    heights = rec["heights"].astype(i16)
    return {
        "hand": rec["hand"][seat].astype(i16),
        "to_play": np.array((int(rec["current"]) - seat) % n if int(rec["status"]) == RUNNING else -1,
                            i16),
        "stock_top": np.array([top(rec["stock"][i], int(rec["stock_len"][i])) for i in order], i16),
        "stock_size": np.array([rec["stock_len"][i] for i in order], i16),
        "hand_size": np.array([rec["hand_len"][i] for i in order], i16),
        "partner": np.array(n // 2 if rules.teams else -1, i16),
        "discard_top": dtop,
        "discard_counts": np.stack([rec["disc_cnt"][i] for i in order]).astype(i16),
        "build_need": np.array(needs(rec, p[P_DIRECTIONS], TOP), i16),
        "build_height": heights,
        "draw_size": np.array(rec["draw_len"], i16),
        "completed_size": np.array(rec["done_len"], i16),
        "cover_pile": np.array(rec["cover"], i16),
        "scores": np.array([rec["totals"][i] for i in order], np.int32),
    }


ENCODERS = {
    "vector": VECTOR.encoder(
        observe_vector,
        doc="flat float32: own hand counts, every seat's stock top/size and open discard piles (relative "
            "seats), build piles, pile sizes, turn phase, match totals",
    ),
    "dict": DictEncoder("dict", dict_space, dict_encode, "structured view of the same information"),
}


# -- the re-deal of what a seat has not seen (sample_world, the search bot) --------------------


@njit(cache=True)
def resample_seen(t, seat, g, buf):
    """Re-deal what ``seat`` does not see in record ``t`` (the other hands, every stock under its top,
    the draw pile) with the game generator of record ``g``. The pool is rebuilt from its counts, so the
    result depends only on which cards are hidden, never on where they were."""
    n = t.num_players
    counts = np.zeros(NUM_CODES, np.int64)
    for i in range(t.draw_len):
        counts[t.draw[i]] += 1
    for j in range(n):
        for i in range(t.stock_len[j] - 1):
            counts[t.stock[j, i]] += 1
        if j != seat:
            for c in range(NUM_CODES):
                counts[c] += t.hand[j, c]
    shuffled_pool(counts, 0, g, buf)
    m = 0
    for j in range(n):
        for i in range(t.stock_len[j] - 1):
            t.stock[j, i] = buf[m]
            m += 1
        if j != seat:
            for c in range(NUM_CODES):
                t.hand[j, c] = 0
            for _ in range(t.hand_len[j]):
                t.hand[j, buf[m]] += 1
                m += 1
    for i in range(t.draw_len):
        t.draw[i] = buf[m]
        m += 1
    # the bots' planning scratch may hold the hand of the last seat a bot planned for: never carry it over
    t._bot_pos[:] = 0
    t._bot_hand[:] = 0
    t._bot_need[:] = 0


#: what Skip-Bo hides and how `cardgym.core.contract.worlds.sample_world` re-deals it (docs/hidden_information.md)
WORLD = Hidden(
    resample=resample_seen,
    positions=("stock", "draw"),
    counts=("hand",),
    seen="its own hand, every stock's top, every discard pile (all of it), the build piles and the "
    "completed pile; not the other hands, any stock under its top or the draw pile",
)
