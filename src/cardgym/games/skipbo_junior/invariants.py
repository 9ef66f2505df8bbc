"""Skip-Bo Junior state invariants: what every record reachable under a `JuniorRules` satisfies.

`check_state` is the game's ``GameSpec.check_state`` (run by ``GameSpec.validate_record`` after the
common header checks, so ``num_players``, ``current``, ``status`` and ``turn`` are already in range).
It checks bounds before it reads anything they index, so it never reads outside an array. `cards_of`
is the card multiset of a valid record (the test kit's conservation check uses it too).
"""

from __future__ import annotations

import numpy as np

from ...kit import RUNNING, TERMINATED, all_equal, all_in_range, bad, check_codes, in_range, same_cards
from .._shared.invariants import check_build_piles, check_pile_lengths, check_stall
from .rules import DECK_SIZE, FULL_DECK, MAX_STOCK, NUM_CODES, NUM_PILES, NUM_STACKS, TOP, WILD


_STOCK_AT = np.arange(MAX_STOCK)
_STACK_AT = np.arange(DECK_SIZE)
_BUILD_AT = np.arange(TOP)


def cards_of(record, rules=None) -> np.ndarray:
    """Every card physically in the game: draw pile, completed stack, build piles, stocks and hand
    stacks. A permutation of the deck in every valid record."""
    n = int(record["num_players"])
    parts = [
        record["draw"][: int(record["draw_len"])],
        record["done"][: int(record["done_len"])],
        record["builds"][_BUILD_AT < record["bcounts"][:, None]],
        record["stock"][:n][_STOCK_AT < record["stock_len"][:n, None]],
        record["stacks"][:n][_STACK_AT < record["stack_len"][:n, :, None]],
    ]
    return np.concatenate(parts).astype(np.int8)


def check_state(r, rules) -> None:
    """Raise ``ValueError`` naming the first field that no Skip-Bo Junior game under ``rules`` could hold."""
    n = rules.num_players
    status = int(r["status"])
    running = status == RUNNING
    rest = f"seats {n}.. do not play"
    top = NUM_CODES - 1
    # ---- bounds first: everything later reads through these
    stock_len, draw_len, done_len = check_pile_lengths(r, rules, DECK_SIZE)
    stack_len = np.asarray(r["stack_len"])
    all_in_range("stack_len", stack_len[:n], 0, DECK_SIZE)
    for key in ("stock_len", "stack_len", "stack_under"):
        all_equal(key, r[key][n:], 0, rest)
    for j in range(n):
        check_codes("stock", r["stock"][j, : stock_len[j]], WILD, top, f"in the stock of seat {j}")
        for k in range(NUM_STACKS):
            check_codes("stacks", r["stacks"][j, k, : stack_len[j, k]], WILD, top, f"in hand stack {k} of seat {j}")
    check_codes("draw", r["draw"][:draw_len], WILD, top, f"in the draw pile (draw_len={draw_len})")
    check_codes("done", r["done"][:done_len], WILD, top, f"in the completed stack (done_len={done_len})")
    heights, bcounts = check_build_piles(r, NUM_PILES, TOP, WILD, lambda b, h, c: np.arange(h - c + 1, h + 1))
    # ---- the cards: a permutation of the deck
    same_cards(cards_of(r), FULL_DECK, "stocks, hand stacks, build piles, completed and draw piles")
    # ---- derived counts
    under = np.zeros((n, NUM_STACKS, NUM_CODES), np.int64)
    hidden = np.bincount(np.asarray(r["draw"][:draw_len], np.int64), minlength=NUM_CODES)
    for j in range(n):
        if stock_len[j] > 1:
            hidden += np.bincount(np.asarray(r["stock"][j, : stock_len[j] - 1], np.int64), minlength=NUM_CODES)
        for k in range(NUM_STACKS):
            L = int(stack_len[j, k])
            if L > 1:
                under[j, k] = np.bincount(np.asarray(r["stacks"][j, k, : L - 1], np.int64), minlength=NUM_CODES)
    all_equal("stack_under", r["stack_under"][:n], under, "the cards of each code under that stack's top")
    all_equal("hidden", r["hidden"], hidden, "the cards of each code in the draw pile and under the stock tops")
    # ---- the turn and the end
    in_range("played", r["played"], 0, 1)
    # a turn draws at most NUM_STACKS cards, each at most one recycle (the turn in progress drew too)
    in_range("recycles", r["recycles"], 0, NUM_STACKS * (int(r["turn"]) + 1))
    check_stall(r, rules, running, "idle", int(r["turn"]))
    winner = in_range("winner", r["winner"], -1, n - 1)
    if running:
        if winner != -1:
            raise bad("winner", winner, "should be -1 while the game runs")
        empty = np.flatnonzero(stock_len[:n] == 0)
        if empty.size:
            raise bad("stock_len", 0, "is an emptied stock in a running game (emptying it wins)", int(empty[0]))
        cur = int(r["current"])
        wanted = {0} | {int(h) + 1 for h in heights}
        tops = [int(r["stock"][cur, stock_len[cur] - 1])]
        tops += [int(r["stacks"][cur, k, stack_len[cur, k] - 1]) for k in range(NUM_STACKS) if stack_len[cur, k]]
        if not wanted.intersection(tops):
            raise bad("current", cur, "has no card to play (turns without a play are taken by the rules, so "
                      "the seat to act always has one)")
    elif winner >= 0:
        if status != TERMINATED or stock_len[winner] != 0:
            raise bad("winner", winner, f"has {int(stock_len[winner])} stock cards left with status={status} "
                      "(the winner emptied their stock)")
    else:
        empty = np.flatnonzero(stock_len[:n] == 0)
        if empty.size:
            raise bad("winner", winner, f"should be {int(empty[0])}, whose stock is empty")
