"""Blackjack's legality in plain Python, read by `cardgym.testing.check_game` against the kernel."""

from __future__ import annotations


def legal(rec, rules) -> set:
    """Stand always; hit while the hand is under 21 and the shoe holds a card."""
    if int(rec["status"]) != 0:
        return set()
    j = int(rec["current"])
    values = [1 if c % 13 == 0 else min(10, c % 13 + 1) for c in rec["hand"][j][: int(rec["hand_len"][j])]]
    total = sum(values)
    if 1 in values and total + 10 <= 21:
        total += 10
    return {0, 1} if total < 21 and int(rec["draw_len"]) > 0 else {0}
