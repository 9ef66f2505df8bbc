"""What a loadable Blackjack record satisfies (run on load, never on ``step()``)."""

from __future__ import annotations

import numpy as np

from cardgym.core.game import RUNNING
from cardgym.core.invariants import all_equal, all_in_range, bad, check_codes, in_range, same_cards

from .rules import DECK, DECK_SIZE, HAND_MAX, hand_total


def cards_of(record, rules) -> np.ndarray:
    """Every card in the record: the hands, the dealer's, the shoe."""
    n = int(record["num_players"])
    parts = [np.asarray(record["hand"][j][: int(record["hand_len"][j])], np.int64) for j in range(n)]
    parts.append(np.asarray(record["dealer"][: int(record["dealer_len"])], np.int64))
    parts.append(np.asarray(record["draw"][: int(record["draw_len"])], np.int64))
    return np.concatenate(parts).astype(np.int8)


def check_state(record, rules) -> None:
    n = rules.num_players
    lens = np.asarray(record["hand_len"])
    all_in_range("hand_len", lens[:n], 2, HAND_MAX - 1)
    all_equal("hand_len", lens[n:], 0, f"seats {n}.. do not play")
    dl = in_range("dealer_len", record["dealer_len"], 2, HAND_MAX - 1)
    sl = in_range("draw_len", record["draw_len"], 0, DECK_SIZE - 2 * (n + 1))
    for j in range(n):
        check_codes("hand", np.asarray(record["hand"][j])[: int(lens[j])], 0, DECK_SIZE - 1, f"of seat {j}")
    check_codes("dealer", np.asarray(record["dealer"])[:dl], 0, DECK_SIZE - 1)
    check_codes("draw", np.asarray(record["draw"])[:sl], 0, DECK_SIZE - 1)
    same_cards(cards_of(record, rules), DECK, "the hands, the dealer's cards and the shoe")
    done = np.asarray(record["done"])
    all_in_range("done", done[:n], 0, 1)
    all_equal("done", done[n:], 0, f"seats {n}.. do not play")
    all_in_range("outcome", np.asarray(record["outcome"])[:n], -1, 1)
    for j in range(n):
        total = int(hand_total(record["hand"][j], int(lens[j]))[0])
        if (total > 21 or (total == 21 and lens[j] > 2)) and not done[j]:
            raise bad("done", done[j], f"is 0 for seat {j} whose total {total} has ended its hand", j)
    if int(record["status"]) == RUNNING:
        if dl != 2:
            raise bad("dealer_len", dl, "is not 2 while the seats play (the dealer draws at the end)")
        cur = int(record["current"])
        if done[cur]:
            raise bad("current", cur, "has finished its hand but is to act")
        if any(done[j] == 0 for j in range(cur)):
            raise bad("current", cur, "acts before an earlier seat has finished")
        all_equal("outcome", np.asarray(record["outcome"]), 0, "nothing is settled while the game runs")
