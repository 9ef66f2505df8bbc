"""Blackjack in words: actions, the table as text, the result."""

from __future__ import annotations

from .rules import HIT, RANK_NAMES, SUIT_LETTERS, hand_total


def card_name(c: int) -> str:
    c = int(c)
    return RANK_NAMES[c % 13] + SUIT_LETTERS[c // 13]


def action_to_str(a: int) -> str:
    return "hit" if int(a) == HIT else "stand"


def _total(r, j) -> tuple:
    return hand_total(r["hand"][j], int(r["hand_len"][j]))


def describe_action(r, rules, a: int) -> str:
    total, soft = _total(r, int(r["current"]))
    return f"{action_to_str(a)} on {'soft ' if soft else ''}{int(total)}"


def _cards(cards, k) -> str:
    return " ".join(card_name(c) for c in cards[:k])


def render_ansi(r, rules) -> str:
    """The public table: every hand, the dealer's up card (all of the dealer's cards once over)."""
    n = int(r["num_players"])
    running = int(r["status"]) == 0
    dl = int(r["dealer_len"])
    if running:
        head = f"Blackjack, turn {int(r['turn'])}: player_{int(r['current'])} to play"
        dealer = f"dealer: {card_name(r['dealer'][0])} ??"
    else:
        head = f"Blackjack, over after {int(r['turn'])} turns"
        dealer = f"dealer: {_cards(r['dealer'], dl)} ({int(hand_total(r['dealer'], dl)[0])})"
    lines = [head, dealer]
    for j in range(n):
        total, soft = _total(r, j)
        state = "" if running and not r["done"][j] else (" bust" if total > 21 else " done")
        if not running:
            state = {1: " beats the dealer", 0: " push", -1: " loses"}[int(r["outcome"][j])]
        lines.append(f"player_{j}: {_cards(r['hand'][j], int(r['hand_len'][j]))} "
                     f"({'soft ' if soft else ''}{int(total)}){state}")
    return "\n".join(lines)


def result(r, rules) -> dict:
    """``winners`` (seats that beat the dealer), ``pushes`` (seats that tied it), every total."""
    n = int(r["num_players"])
    status = int(r["status"])
    out = [int(r["outcome"][j]) for j in range(n)] if status == 1 else [0] * n
    return {
        "outcome": "running" if status == 0 else ("over" if status == 1 else "truncated"),
        "winners": [j for j in range(n) if status == 1 and out[j] == 1],
        "pushes": [j for j in range(n) if status == 1 and out[j] == 0],
        "totals": [int(_total(r, j)[0]) for j in range(n)],
        "dealer_total": int(hand_total(r["dealer"], int(r["dealer_len"]))[0]) if status != 0 else None,
        "turns": int(r["turn"]),
    }
