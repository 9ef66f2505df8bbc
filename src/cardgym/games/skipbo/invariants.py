"""Skip-Bo state invariants: what every record reachable under a `SkipBoRules` satisfies.

`check_state` is the game's ``GameSpec.check_state`` (run by ``GameSpec.validate_record`` after the
common header checks, so ``num_players``, ``current``, ``status`` and ``turn`` are already in range).
It checks bounds before it reads anything they index, so it never reads outside an array. `cards_of`
is the card multiset of a valid record (the test kit's conservation check uses it too). The record's
``_bot_*`` fields are bot scratch, written before they are read, and not checked.
"""

from __future__ import annotations

import numpy as np

from ...kit import RUNNING, TERMINATED, all_equal, all_in_range, bad, check_codes, in_range, same_cards
from .._shared.invariants import check_build_piles, check_pile_lengths, check_stall
from .rules import (
    DECK_SIZE,
    FULL_DECK,
    HAND,
    MAX_PLAYERS,
    MAX_STOCK,
    MAX_TURN_PLAYS,
    NUM_CODES,
    NUM_DISCARDS,
    NUM_PILES,
    OUT_DRAW,
    OUT_NONE,
    OUT_WIN,
    PILE_CAP,
    TOP,
    WILD,
)

#: most points one hand can pay (25 + 5 per card left in the opponents' stocks)
HAND_POINTS_MAX = 25 + 5 * DECK_SIZE


_STOCK_AT = np.arange(MAX_STOCK)
_DISC_AT = np.arange(PILE_CAP)
_BUILD_AT = np.arange(TOP)
_CODES = np.tile(np.arange(NUM_CODES, dtype=np.int8), MAX_PLAYERS)


def cards_of(record, rules=None) -> np.ndarray:
    """Every card code physically in the game: stocks, hands, discard piles, build piles, completed
    stack and draw pile. A permutation of the deck in every valid record."""
    n = int(record["num_players"])
    parts = [
        record["stock"][:n][_STOCK_AT < record["stock_len"][:n, None]],
        np.repeat(_CODES[: n * NUM_CODES], record["hand"][:n].reshape(-1)),
        record["disc"][:n][_DISC_AT < record["disc_len"][:n, :, None]],
        record["builds"][_BUILD_AT < record["bcounts"][:, None]],
        np.asarray(record["done"])[: int(record["done_len"])],
        np.asarray(record["draw"])[: int(record["draw_len"])],
    ]
    return np.concatenate(parts).astype(np.int8)


def _pile_values(rules, b: int, heights: int, count: int) -> np.ndarray:
    """The values of the ``count`` cards on top of build pile ``b`` of height ``heights``, bottom first."""
    start, step = (12, -1) if rules.build_directions == "two_up_two_down" and b >= 2 else (1, 1)
    return start + step * np.arange(heights - count, heights)


def check_state(r, rules) -> None:
    """Raise ``ValueError`` naming the first field that no Skip-Bo game under ``rules`` could hold."""
    n = rules.num_players
    status = int(r["status"])
    running = status == RUNNING
    rest = f"seats {n}.. do not play"
    # ---- bounds first: everything later reads through these
    stock_len, draw_len, done_len = check_pile_lengths(r, rules, DECK_SIZE)
    disc_len = np.asarray(r["disc_len"])
    all_in_range("disc_len", disc_len[:n], 0, PILE_CAP)
    hand = np.asarray(r["hand"])
    all_in_range("hand", hand[:n], 0, HAND, "(cards of each code in a hand)")
    for key, want in (("stock_len", 0), ("disc_len", 0), ("hand_len", 0), ("hand", 0), ("stop", -1),
                      ("dtop", -1), ("disc_cnt", 0), ("points", 0), ("totals", 0)):
        all_equal(key, r[key][n:], want, rest)
    for i in range(n):
        check_codes("stock", r["stock"][i, : stock_len[i]], WILD, NUM_CODES - 1, f"in the stock of seat {i}")
        for d in range(NUM_DISCARDS):
            check_codes("disc", r["disc"][i, d, : disc_len[i, d]], WILD, NUM_CODES - 1,
                        f"in discard pile {d} of seat {i}")
    check_codes("draw", r["draw"][:draw_len], WILD, NUM_CODES - 1, f"in the draw pile (draw_len={draw_len})")
    check_codes("done", r["done"][:done_len], WILD, NUM_CODES - 1, f"in the completed stack (done_len={done_len})")
    heights, bcounts = check_build_piles(r, NUM_PILES, TOP, WILD, lambda b, h, c: _pile_values(rules, b, h, c))
    # ---- the cards: a permutation of the deck
    same_cards(cards_of(r), FULL_DECK, "stocks, hands, discard piles, build piles, completed and draw piles")
    # ---- derived fields
    all_in_range("hand_len", r["hand_len"][:n], 0, HAND)
    all_equal("hand_len", r["hand_len"][:n], hand[:n].sum(axis=1), "the number of cards in that hand")
    tops = np.full(n, -1, np.int64)
    dtops = np.full((n, NUM_DISCARDS), -1, np.int64)
    cnt = np.zeros((n, NUM_DISCARDS, NUM_CODES), np.int64)
    for i in range(n):
        if stock_len[i]:
            tops[i] = r["stock"][i, stock_len[i] - 1]
        for d in range(NUM_DISCARDS):
            L = int(disc_len[i, d])
            if L:
                dtops[i, d] = r["disc"][i, d, L - 1]
            cnt[i, d] = np.bincount(np.asarray(r["disc"][i, d, :L], np.int64), minlength=NUM_CODES)
    all_equal("stop", r["stop"][:n], tops, "the top card of that stock (-1 when empty)")
    all_equal("dtop", r["dtop"][:n], dtops, "the top card of that discard pile (-1 when empty)")
    all_equal("disc_cnt", r["disc_cnt"][:n], cnt, "the cards of each code in that discard pile")
    if rules.recycle == "immediately" and done_len:
        raise bad("done_len", done_len, "should be 0: recycle='immediately' puts completed piles under the "
                  "draw pile at once")
    # ---- the hand, the turn, the match
    cover = in_range("cover", r["cover"], -1, NUM_PILES - 1)
    if cover >= 0:
        if not rules.wild_must_be_covered:
            raise bad("cover", cover, "should be -1: only wild_must_be_covered=True makes a wild wait for "
                      "its cover")
        c = int(bcounts[cover])
        if c == 0 or int(r["builds"][cover, c - 1]) != WILD:
            raise bad("cover", cover, f"names build pile {cover}, whose top card is not a wild")
    turn_plays = in_range("turn_plays", r["turn_plays"], 0, MAX_TURN_PLAYS - (1 if running else 0))
    played = in_range("played", r["played"], 0, 1)
    if played != (turn_plays > 0):
        raise bad("played", played, f"disagrees with turn_plays={turn_plays}")
    in_range("hand_start", r["hand_start"], 0, n - 1)
    # every hand but a match's last takes at least one turn: with max_turns <= 32,767 the count never wraps
    hands = in_range("hands", r["hands"], 0, int(r["turn"]) + 1)
    winner = in_range("winner", r["winner"], -1, n - 1)
    outcome = in_range("outcome", r["outcome"], OUT_NONE, OUT_DRAW)
    if hands == 0:
        if outcome != OUT_NONE or winner != -1:
            raise bad("outcome", outcome, f"should be {OUT_NONE} with winner -1 before any hand has ended")
    elif outcome == OUT_NONE or (outcome == OUT_WIN) != (winner >= 0):
        raise bad("outcome", outcome, f"disagrees with winner={winner} after {hands} hand(s) ({OUT_WIN} = won "
                  f"by winner, {OUT_DRAW} = a draw with winner -1)")
    target = rules.match_target
    if target is None and hands > (0 if running else 1):
        raise bad("hands", hands, "counts more hands than a one-hand episode holds")
    turn = int(r["turn"])
    hand_turns = in_range("hand_turns", r["hand_turns"], 0, turn)
    check_stall(r, rules, running, "idle", hand_turns)
    all_in_range("points", r["points"][:n], 0, HAND_POINTS_MAX)
    all_in_range("totals", r["totals"][:n], 0, HAND_POINTS_MAX * hands, f"({hands} hands played)")
    if running and target is not None:
        all_in_range("totals", r["totals"][:n], 0, target - 1, f"(a running match ends at match_target={target})")
    if rules.teams:
        partner = (np.arange(n) + n // 2) % n
        all_equal("totals", r["totals"][:n], np.asarray(r["totals"])[partner], "partners share their points")
    if not running:
        if status == TERMINATED and outcome == OUT_NONE:
            raise bad("outcome", outcome, "should tell how the hand ended once the game is terminated")
        return
    # a running hand: nobody has won it yet
    if rules.teams:
        both = np.flatnonzero((stock_len[:n] == 0) & (stock_len[(np.arange(n) + n // 2) % n] == 0))
    else:
        both = np.flatnonzero(stock_len[:n] == 0)
    if both.size:
        raise bad("stock_len", 0, "is an emptied stock in a running hand (emptying it wins the hand)",
                  int(both[0]))
    cur = int(r["current"])
    if int(r["hand_len"][cur]) == 0:
        can = draw_len > 0 or done_len > 0 or (rules.recycle_build_piles and bool((bcounts > 1).any()))
        if can:
            raise bad("hand_len", 0, "is the hand of the seat to act, which refills at once while cards can "
                      "be drawn", cur)
