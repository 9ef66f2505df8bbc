"""Skyjo in words: action names, an action described in its state, the table as text, the result."""

from __future__ import annotations

from .rules import (
    A_DRAW,
    A_REPLACE,
    A_TAKE,
    COLS,
    END_GAME,
    END_STALL,
    END_TRUNCATED,
    HIDDEN,
    PH_DRAWN,
    PH_OVER,
    PH_TAKEN,
    REMOVED,
    ROWS,
)

PHASE_NAMES = ["setup", "start", "drawn", "taken", "over"]


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


def describe_action(r, rules, a: int) -> str:
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
