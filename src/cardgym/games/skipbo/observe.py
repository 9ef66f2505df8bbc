"""Skip-Bo observation encoders: the flat "vector" (compiled) and the structured "dict".

Both show only what the observing seat may see: the observer's own hand; every stock's top card and
size; every discard pile (top card and the counts of every code in it: discard piles are open); the
build piles; the sizes of the draw pile and the completed stack; hand sizes. Hidden: the cards under the
stock tops (also the observer's own), the other players' hands, the draw pile's order and contents.

Seats are relative: index 0 = the observer, then the following seats in turn order.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from numba import njit

from ...core.game import Field
from .kernels import need
from .rules import DECK_SIZE, NUM_CODES, NUM_DISCARDS, NUM_PILES, P_DIRECTIONS, P_TEAMS

CODE_DOC = "index 0 = wild, 1..12 = that value"


def _score_high(rules) -> float:
    return float((rules.match_target or 0) + 25 + 5 * DECK_SIZE)


def vector_layout(rules) -> list:
    """The named table of the "vector" encoder (sizes depend on ``num_players`` only)."""
    n = rules.num_players
    s = rules.stock_size
    return [
        Field("hand", 13, 0, 5, f"own hand: number of cards of each code ({CODE_DOC})"),
        Field("to_play", n, 0, 1, "one-hot relative seat of the player to act"),
        Field("stock_top", n * 13, 0, 1,
              f"per relative seat: one-hot stock top code ({CODE_DOC}); zeros = empty"),
        Field("stock_size", n, 0, s, "per relative seat: cards left in the stock"),
        Field("hand_size", n, 0, 5, "per relative seat: cards in hand"),
        Field("partner", n, 0, 1, "per relative seat: 1 if that seat is the observer's partner (teams)"),
        Field(
            "discard_top", n * 4 * 13, 0, 1,
            f"per relative seat, per discard pile 0..3: one-hot top code ({CODE_DOC}); zeros = empty pile",
        ),
        Field(
            "discard_counts", n * 4 * 13, 0, 18,
            "per relative seat, per discard pile 0..3: number of cards of each code in the pile "
            f"({CODE_DOC})",
        ),
        Field("build_need", 4 * 12, 0, 1,
              "per build pile 0..3: one-hot value needed next (index v-1 for value v)"),
        Field("build_height", 4, 0, 11, "per build pile 0..3: cards played on it so far (0 = empty)"),
        Field("draw_size", 1, 0, DECK_SIZE, "cards in the draw pile"),
        Field("completed_size", 1, 0, DECK_SIZE, "cards in the completed stack (waiting to be recycled)"),
        Field("cover_pile", 4, 0, 1, "turn phase: one-hot build pile whose wild must be covered now "
              "(wild_must_be_covered); all zeros = free play"),
        Field("scores", n, 0, _score_high(rules), "per relative seat: match total (0 without match_target)"),
    ]


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
    for c in range(NUM_CODES):
        out[c] = hand[seat, c]
    o_play = 13
    o_top = o_play + n
    o_size = o_top + n * 13
    o_hsize = o_size + n
    o_partner = o_hsize + n
    o_dtop = o_partner + n
    o_dcnt = o_dtop + n * 52
    o_need = o_dcnt + n * 52
    o_height = o_need + 48
    o_draw = o_height + 4
    o_scores = o_draw + 6
    if s.status == 0:
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
    for b in range(NUM_PILES):
        out[o_need + b * 12 + int(need(s, p, b)) - 1] = 1.0
        out[o_height + b] = s.heights[b]
    out[o_draw] = s.draw_len
    out[o_draw + 1] = s.done_len
    if s.cover >= 0:
        out[o_draw + 2 + int(s.cover)] = 1.0


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
    down = p[P_DIRECTIONS] == 1
    needs = np.array([(12 - h) if (down and b >= 2) else (1 + h) for b, h in enumerate(heights)], i16)
    return {
        "hand": rec["hand"][seat].astype(i16),
        "to_play": np.array((int(rec["current"]) - seat) % n if int(rec["status"]) == 0 else -1,
                            i16),
        "stock_top": np.array([top(rec["stock"][i], int(rec["stock_len"][i])) for i in order], i16),
        "stock_size": np.array([rec["stock_len"][i] for i in order], i16),
        "hand_size": np.array([rec["hand_len"][i] for i in order], i16),
        "partner": np.array(n // 2 if rules.teams else -1, i16),
        "discard_top": dtop,
        "discard_counts": np.stack([rec["disc_cnt"][i] for i in order]).astype(i16),
        "build_need": needs,
        "build_height": heights,
        "draw_size": np.array(rec["draw_len"], i16),
        "completed_size": np.array(rec["done_len"], i16),
        "cover_pile": np.array(rec["cover"], i16),
        "scores": np.array([rec["totals"][i] for i in order], np.int32),
    }
