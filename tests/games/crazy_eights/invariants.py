"""What a loadable Crazy Eights record satisfies (run on load, never on ``step()``)."""

from __future__ import annotations

import numpy as np

from cardgym.kit import RUNNING, all_equal, all_in_range, bad, check_codes, in_range, same_cards

from .rules import DECK, DECK_SIZE, EIGHT, PH_SUIT


def cards_of(record, rules) -> np.ndarray:
    """Every card in the record: the hands, the draw pile, the discard pile (int8 codes)."""
    n = int(record["num_players"])
    hands = [np.flatnonzero(np.asarray(record["hand"][j])) for j in range(n)]
    draw = np.asarray(record["draw"][: int(record["draw_len"])], np.int64)
    discard = np.asarray(record["discard"][: int(record["discard_len"])], np.int64)
    return np.concatenate(hands + [draw, discard]).astype(np.int8)


def check_state(record, rules) -> None:
    n = rules.num_players
    hand = np.asarray(record["hand"])
    all_in_range("hand", hand[:n], 0, 1, "(1 = the seat holds that card)")
    all_equal("hand", hand[n:], 0, f"seats {n}.. do not play")
    all_equal("hand_len", np.asarray(record["hand_len"])[:n], hand[:n].sum(axis=1), "cards held by each seat")
    all_equal("hand_len", np.asarray(record["hand_len"])[n:], 0, f"seats {n}.. do not play")
    dl = in_range("draw_len", record["draw_len"], 0, DECK_SIZE - 1)
    xl = in_range("discard_len", record["discard_len"], 1, DECK_SIZE)
    check_codes("draw", np.asarray(record["draw"])[:dl], 0, DECK_SIZE - 1)
    check_codes("discard", np.asarray(record["discard"])[:xl], 0, DECK_SIZE - 1)
    same_cards(cards_of(record, rules), DECK, "the hands, the draw pile and the discard pile")
    in_range("suit", record["suit"], 0, 3)
    phase = in_range("phase", record["phase"], 0, 1)
    winner = in_range("winner", record["winner"], -1, n - 1)
    status = int(record["status"])
    if status == RUNNING:
        in_range("passes", record["passes"], 0, n - 1)
        if winner >= 0:
            raise bad("winner", winner, "is set in a running game")
        if phase == PH_SUIT and int(record["discard"][xl - 1]) & 7 != EIGHT:
            raise bad("phase", phase, "asks for a suit but the discard top is not an eight")
    else:
        in_range("passes", record["passes"], 0, n)
    if winner >= 0 and int(record["hand_len"][winner]) != 0:
        raise bad("winner", winner, "still holds cards")
