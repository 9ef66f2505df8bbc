"""Crazy Eights in words: action names, actions in context, the table as text, the result."""

from __future__ import annotations

from .rules import DECK_SIZE, DRAW, EIGHT, NAME_SUIT, PH_SUIT, RANK_NAMES, SUIT_LETTERS, SUIT_NAMES


def card_name(c: int) -> str:
    """``"10H"``, ``"8S"``, ``"AC"``."""
    return RANK_NAMES[int(c) & 7] + SUIT_LETTERS[int(c) >> 3]


def action_to_str(a: int) -> str:
    a = int(a)
    if 0 <= a < DECK_SIZE:
        return f"play {card_name(a)}"
    if a == DRAW:
        return "draw a card (pass when none can be drawn)"
    return f"name {SUIT_NAMES[a - NAME_SUIT]}"


def describe_action(r, rules, a: int) -> str:
    a = int(a)
    top = card_name(r["discard"][int(r["discard_len"]) - 1])
    if 0 <= a < DECK_SIZE:
        if a & 7 == EIGHT:
            return f"play {card_name(a)} (an eight: then name the suit to follow)"
        return f"play {card_name(a)} on {top}"
    if a == DRAW:
        if int(r["draw_len"]) > 0 or int(r["discard_len"]) > 1:
            return "draw a card (your turn ends)"
        return "pass (nothing to play, nothing to draw)"
    return f"name {SUIT_NAMES[a - NAME_SUIT]} as the suit to follow"


def render_ansi(r, rules) -> str:
    """The public table: the discard top, the suit to follow, pile and hand sizes."""
    n = int(r["num_players"])
    status = int(r["status"])
    xl = int(r["discard_len"])
    if status == 0:
        doing = "names a suit" if int(r["phase"]) == PH_SUIT else "to play"
        head = f"Crazy Eights, turn {int(r['turn'])}: player_{int(r['current'])} {doing}"
    else:
        w = int(r["winner"])
        head = f"Crazy Eights, over after {int(r['turn'])} turns: " + (
            f"player_{w} wins" if w >= 0 else ("blocked, a draw" if status == 1 else "truncated"))
    lines = [head,
             f"discard: {card_name(r['discard'][xl - 1])} ({xl} cards)   suit to follow: "
             f"{SUIT_NAMES[int(r['suit'])]}   draw pile: {int(r['draw_len'])}"]
    lines += [f"player_{j}: {int(r['hand_len'][j])} cards" for j in range(n)]
    return "\n".join(lines)


def result(r, rules) -> dict:
    n = int(r["num_players"])
    status = int(r["status"])
    w = int(r["winner"])
    outcome = "running" if status == 0 else ("win" if w >= 0 else ("draw" if status == 1 else "truncated"))
    return {
        "outcome": outcome,
        "winners": [w] if w >= 0 else [],
        "cards_left": [int(r["hand_len"][j]) for j in range(n)],
        "turns": int(r["turn"]),
    }
