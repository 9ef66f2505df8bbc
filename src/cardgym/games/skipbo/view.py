"""Skip-Bo in Python (not hot): action names, the ANSI table, results, conservation and resampling."""

from __future__ import annotations

import numpy as np

from .rules import (
    A_DISCARD,
    A_PASS,
    NUM_CODES,
    NUM_DISCARDS,
    NUM_PILES,
    OUT_DRAW,
    OUT_WIN,
    S_DISCARD,
    S_HAND_WILD,
    S_PARTNER_DISCARD,
    S_PARTNER_STOCK,
    S_STOCK,
)


def card_name(code: int) -> str:
    return "SB" if int(code) == 0 else str(int(code))


def action_to_str(a: int) -> str:
    a = int(a)
    if a == A_PASS:
        return "pass (empty hand, nothing to draw)"
    if A_DISCARD <= a < A_PASS:
        k = a - A_DISCARD
        card, pile = divmod(k, 4)
        name = "wild" if card == 12 else str(card + 1)
        return f"discard hand {name} onto own discard pile {pile}, ending the turn"
    if 0 <= a < A_DISCARD:
        src, pile = divmod(a, 4)
        if src == S_STOCK:
            what = "own stock top"
        elif src < S_HAND_WILD:
            what = f"hand {src}"
        elif src == S_HAND_WILD:
            what = "hand wild"
        elif src < S_PARTNER_STOCK:
            what = f"own discard pile {src - S_DISCARD} top"
        elif src == S_PARTNER_STOCK:
            what = "partner's stock top"
        else:
            what = f"partner's discard pile {src - S_PARTNER_DISCARD} top"
        return f"play {what} on build pile {pile}"
    raise ValueError(f"action {a} is out of range for skipbo (0..144)")


def _need(rec, rules, b):
    h = int(rec["heights"][b])
    if rules.build_directions == "two_up_two_down" and b >= 2:
        return 12 - h
    return 1 + h


def render_ansi(rec, rules) -> str:
    """The table as spectators see it: stock tops and sizes, open discard piles, hands as ``##``."""
    n = int(rec["num_players"])
    lines = []
    st = int(rec["status"])
    head = f"Skip-Bo  turn {int(rec['turn'])}  hand {int(rec['hands']) + (1 if st == 0 else 0)}"
    if rules.match_target is not None:
        head += "  totals " + " ".join(str(int(rec["totals"][i])) for i in range(n))
    lines.append(head)
    builds = []
    for b in range(NUM_PILES):
        h = int(rec["heights"][b])
        top = "--" if h == 0 else card_name(rec["builds"][b, int(rec["bcounts"][b]) - 1])
        builds.append(f"B{b}[{top} h{h} next {_need(rec, rules, b)}]")
    lines.append("build piles: " + "  ".join(builds))
    lines.append(f"draw pile: {int(rec['draw_len'])}   completed: {int(rec['done_len'])}")
    if int(rec["cover"]) >= 0:
        lines.append(f"the wild on build pile {int(rec['cover'])} must be covered now")
    for i in range(n):
        mark = ">" if st == 0 and int(rec["current"]) == i else " "
        k = int(rec["stock_len"][i])
        top = card_name(rec["stock"][i, k - 1]) if k else "--"
        team = f" (partner {rules.partner(i)})" if rules.teams else ""
        hand = " ".join(["##"] * int(rec["hand_len"][i])) or "-"
        piles = []
        for d in range(NUM_DISCARDS):
            L = int(rec["disc_len"][i, d])
            piles.append("[" + " ".join(card_name(c) for c in rec["disc"][i, d, :L]) + "]")
        lines.append(f"{mark}P{i}{team}: stock {top} ({k} left)  hand {hand}  discards {' '.join(piles)}")
    if st != 0:
        if st == 2:
            lines.append("truncated (max_turns)")
        elif int(rec["outcome"]) == OUT_DRAW:
            lines.append("draw (stall rule)")
        elif int(rec["outcome"]) == OUT_WIN:
            lines.append(f"P{int(rec['winner'])} wins")
    return "\n".join(lines)


def result(rec, rules) -> dict:
    n = int(rec["num_players"])
    st = int(rec["status"])
    winners: list = []
    if st == 1 and int(rec["outcome"]) == OUT_WIN:
        w = int(rec["winner"])
        winners = sorted({w, rules.partner(w)} - {-1})
    return {
        "winners": winners,
        "draw": st == 1 and int(rec["outcome"]) == OUT_DRAW,
        "truncated": st == 2,
        "scores": [int(rec["points"][i]) for i in range(n)],
        "totals": [int(rec["totals"][i]) for i in range(n)],
        "hands": int(rec["hands"]),
        "stock_left": [int(rec["stock_len"][i]) for i in range(n)],
        "turns": int(rec["turn"]),
    }


def cards(rec) -> np.ndarray:
    """Every card code physically in the game (stocks, hands, discard piles, build piles, completed
    stack, draw pile): `invariants.cards_of`."""
    from .invariants import cards_of

    return cards_of(rec)


def resample_hidden(rec, rules, seat: int, np_rng) -> np.ndarray:
    """A copy of ``rec`` in which everything hidden from ``seat`` is re-dealt: the other players' hands,
    every stock under its top card (the observer's own too) and the draw pile. Sizes are kept."""
    arr = np.zeros(1, rec.dtype)
    arr[0] = rec
    new = arr[0]
    r = rec
    n = int(r["num_players"])
    pool = [r["draw"][: int(r["draw_len"])].copy()]
    for i in range(n):
        k = int(r["stock_len"][i])
        if k > 1:
            pool.append(r["stock"][i, : k - 1].copy())
        if i != seat:
            pool.append(np.repeat(np.arange(NUM_CODES, dtype=np.int8), r["hand"][i].astype(np.int64)))
    pool = np.concatenate(pool).astype(np.int8)
    np_rng.shuffle(pool)
    at = 0
    for i in range(n):
        k = int(r["stock_len"][i])
        if k > 1:
            new["stock"][i, : k - 1] = pool[at : at + k - 1]
            at += k - 1
        if i != seat:
            h = int(r["hand_len"][i])
            new["hand"][i] = np.bincount(pool[at : at + h], minlength=NUM_CODES).astype(np.int8)
            at += h
    L = int(r["draw_len"])
    new["draw"][:L] = pool[at : at + L]
    at += L
    assert at == pool.shape[0]
    return new
