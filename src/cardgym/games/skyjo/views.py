"""Python-side views of a Skyjo record: vector layout, dict encoder, text, results and test extras."""

from __future__ import annotations

import numpy as np

from ...core.game import Field
from .kernels import common_size, obs_size, state_size
from .rules import (
    A_DRAW,
    A_REPLACE,
    A_TAKE,
    COLS,
    DECK_COUNTS,
    END_GAME,
    END_STALL,
    END_TRUNCATED,
    HIDDEN,
    NUM_VALUES,
    PH_DRAWN,
    PH_OVER,
    PH_SETUP,
    PH_START,
    PH_TAKEN,
    REMOVED,
    ROWS,
    SLOTS,
    UP,
)

PHASE_NAMES = ["setup", "start", "drawn", "taken", "over"]

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
    assert sum(f.size for f in fields) == obs_size(n)
    assert sum(f.size for f in fields[1:]) == common_size(n)
    return fields


def state_size_of(rules) -> int:
    return state_size(rules.num_players)


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


# ------------------------------------------------------------------------------------------- strings


def action_to_str(a: int) -> str:
    a = int(a)
    if 0 <= a < 12:
        return f"reveal position {a} (row {a // 4}, col {a % 4}); after a draw, the drawn card is discarded first"
    if 12 <= a < 24:
        q = a - A_REPLACE
        return f"replace position {q} (row {q // 4}, col {q % 4}) with the held card"
    if a == A_DRAW:
        return "draw from the draw pile"
    if a == A_TAKE:
        return "take the top card of the discard pile"
    raise ValueError(f"Skyjo action must be in 0..25, got {a}")


def describe_action(r, a: int) -> str:
    """Action ``a`` in words for the state ``r`` it is taken in (``cardgym play``): names the drawn or
    taken card, the card a replacement puts on the discard pile, and says a setup reveal is only that."""
    a = int(a)
    ph = int(r["phase"])
    if not 0 <= a < A_TAKE + 1:
        return action_to_str(a)

    def where(q):
        return f"position {q} (row {q // 4}, col {q % 4})"

    held = int(r["held"])
    how = "drawn" if ph == PH_DRAWN else "taken"
    cur = int(r["current"])
    if a < 12:
        if ph == PH_DRAWN:
            return f"discard the drawn {held} and reveal {where(a)}"
        return f"reveal {where(a)}"
    if a < 24:
        q = a - A_REPLACE
        up = int(r["up"][cur, q])
        old = "a face-down card" if up == HIDDEN else f"the {int(r['grid'][cur, q])}"
        return f"replace {where(q)}, {old}, with the {how} {held}"
    if a == A_DRAW:
        return "draw from the draw pile"
    dl = int(r["discard_len"])
    return f"take the {int(r['discard'][dl - 1])} from the discard pile" if dl else action_to_str(a)


def _cell(up, v) -> str:
    if up == HIDDEN:
        return " ##"
    if up == REMOVED:
        return "  ."
    return f"{int(v):3d}"


def render_ansi(r, rules) -> str:
    n = rules.num_players
    ph = int(r["phase"])
    dl = int(r["discard_len"])
    lines = [
        f"Skyjo  round {int(r['round_no']) + (0 if ph == PH_OVER else 1)}  turn {int(r['turn'])}  "
        f"phase {PHASE_NAMES[ph]}"
        + (f"  to act: player_{int(r['current'])}" if int(r["status"]) == 0 else "  (over)"),
        f"draw pile: {int(r['draw_len'])} cards   discard: "
        + (f"{int(r['discard'][dl - 1])} ({dl} cards)" if dl else "empty"),
    ]
    if ph in (PH_DRAWN, PH_TAKEN):
        lines.append(f"held card: {int(r['held'])} ({'drawn' if ph == PH_DRAWN else 'taken from the discard'})")
    goer = int(r["goer"])
    for i in range(n):
        tag = " (went out)" if goer == i and ph != PH_OVER else ""
        lines.append(
            f"player_{i}: total {int(r['totals'][i])}  last round {int(r['scores'][i])}{tag}"
        )
        for row in range(ROWS):
            lines.append("  " + "".join(_cell(r["up"][i, 4 * row + c], r["grid"][i, 4 * row + c]) for c in range(COLS)))
    return "\n".join(lines)


def result(r, rules) -> dict:
    n = rules.num_players
    totals = [int(x) for x in r["totals"][:n]]
    reason = int(r["end_reason"])
    winners = []
    if reason == END_GAME:
        low = min(totals)
        winners = [i for i in range(n) if totals[i] == low]
    return {
        "scores": [int(x) for x in r["scores"][:n]],
        "totals": totals,
        "winners": winners,
        "rounds": int(r["round_no"]),
        "turns": int(r["turn"]),
        "end": {0: "running", END_GAME: "game over", END_STALL: "draw (stall)", END_TRUNCATED: "truncated"}[
            reason
        ],
    }


# ------------------------------------------------------------------------------------------- extras


def cards(r) -> np.ndarray:
    """Every card code physically in the game (grids, piles, held card): `invariants.cards_of`."""
    from .invariants import cards_of

    return cards_of(r)


def resample_hidden(r, rules, seat, np_rng):
    """A copy of record ``r`` where every card hidden from ``seat`` (face-down grid cards of every seat,
    the draw pile) is re-dealt at random among those places. In Skyjo no seat knows more than another
    (a seat does not know its own face-down cards), so this is the same for every ``seat``."""
    arr = np.zeros(1, r.dtype)
    arr[0] = r
    out = arr.view(np.recarray)[0]
    n = int(out["num_players"])
    grid = out["grid"]  # views into arr
    hid = np.argwhere(np.asarray(out["up"])[:n] == HIDDEN)
    dl = int(out["draw_len"])
    draw = out["draw"]
    pool = np.concatenate([grid[hid[:, 0], hid[:, 1]], draw[:dl]])
    pool = np_rng.permutation(pool)
    grid[hid[:, 0], hid[:, 1]] = pool[: len(hid)]
    draw[:dl] = pool[len(hid):]
    return out


def name_of_phase(ph: int) -> str:
    return PHASE_NAMES[ph]


__all__ = [
    "PH_SETUP",
    "PH_START",
    "action_to_str",
    "cards",
    "describe_action",
    "dict_encode",
    "dict_space",
    "render_ansi",
    "resample_hidden",
    "result",
    "vector_layout",
]
