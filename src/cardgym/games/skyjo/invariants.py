"""Skyjo state invariants: what every record reachable under a `SkyjoRules` satisfies.

`check_state` is the game's ``GameSpec.check_state`` (run by ``GameSpec.validate_record`` after the
common header checks, so ``num_players``, ``current``, ``status`` and ``turn`` are already in range).
It checks bounds before it reads anything they index, so it never reads outside an array. `cards_of`
is the card multiset of a valid record (the test kit's conservation check uses it too).
"""

from __future__ import annotations

import numpy as np

from ...kit import RUNNING, TRUNCATED, all_equal, all_in_range, bad, check_codes, in_range, same_cards
from .._shared.invariants import check_stall
from .rules import (
    COLS,
    DECK,
    DECK_SIZE,
    END_GAME,
    END_NONE,
    END_STALL,
    END_TRUNCATED,
    HIDDEN,
    MAX_VALUE,
    MIN_VALUE,
    NUM_VALUES,
    PH_DRAWN,
    PH_OVER,
    PH_SETUP,
    PH_START,
    PH_TAKEN,
    REMOVED,
    SLOTS,
    UP,
)

#: lowest / highest points of one round (12 cards of -2; 12 cards of 12, doubled)
ROUND_MIN = SLOTS * MIN_VALUE
ROUND_MAX = 2 * SLOTS * MAX_VALUE


def cards_of(record, rules=None) -> np.ndarray:
    """Every card code physically in the game: grids (all but removed slots), draw pile, discard pile
    and the held card. A permutation of the deck in every valid record."""
    n = int(record["num_players"])
    up = np.asarray(record["up"])[:n]
    grid = np.asarray(record["grid"])[:n]
    parts = [
        grid[up != REMOVED],
        np.asarray(record["draw"])[: int(record["draw_len"])],
        np.asarray(record["discard"])[: int(record["discard_len"])],
    ]
    if int(record["phase"]) in (PH_DRAWN, PH_TAKEN):
        parts.append(np.asarray([record["held"]], np.int8))
    return np.concatenate(parts).astype(np.int8)


def check_state(r, rules) -> None:
    """Raise ``ValueError`` naming the first field that no Skyjo game under ``rules`` could hold."""
    n = rules.num_players
    status = int(r["status"])
    running = status == RUNNING
    # ---- bounds first: everything later reads through these
    draw_len = in_range("draw_len", r["draw_len"], 0, DECK_SIZE)
    discard_len = in_range("discard_len", r["discard_len"], 0, DECK_SIZE)
    phase = in_range("phase", r["phase"], PH_SETUP, PH_OVER)
    up = np.asarray(r["up"])
    grid = np.asarray(r["grid"])
    all_in_range("up", up[:n], HIDDEN, REMOVED, "(0 face down, 1 face up, 2 removed)")
    check_codes("grid", grid[:n], MIN_VALUE, MAX_VALUE)
    all_equal("grid", grid[n:], 0, f"seats {n}.. do not play")
    all_equal("up", up[n:], REMOVED, f"seats {n}.. do not play")
    all_equal("hidden", r["hidden"][n:], 0, f"seats {n}.. do not play")
    check_codes("draw", r["draw"][:draw_len], MIN_VALUE, MAX_VALUE, f"in the draw pile (draw_len={draw_len})")
    check_codes("discard", r["discard"][:discard_len], MIN_VALUE, MAX_VALUE,
                f"in the discard pile (discard_len={discard_len})")
    holding = phase in (PH_DRAWN, PH_TAKEN)
    if holding:
        in_range("held", r["held"], MIN_VALUE, MAX_VALUE)
    elif int(r["held"]) != 0:
        raise bad("held", r["held"], f"should be 0: no card is held in phase {phase}")
    # ---- the cards: a permutation of the deck
    same_cards(cards_of(r), DECK, "grids, draw pile, discard pile and held card")
    # ---- derived counts
    hidden = (up[:n] == HIDDEN).sum(axis=1)
    all_equal("hidden", r["hidden"][:n], hidden, "the number of face-down slots of that seat")
    seen = np.bincount(grid[:n][up[:n] == UP].astype(np.int64) - MIN_VALUE, minlength=NUM_VALUES)
    seen += np.bincount(np.asarray(r["discard"][:discard_len], np.int64) - MIN_VALUE, minlength=NUM_VALUES)
    if holding:
        seen[int(r["held"]) - MIN_VALUE] += 1
    all_equal("seen", r["seen"], seen, "the face-up cards of each value (grids, discard pile, held card)")
    for i in range(n):
        for col in range(COLS):
            u = up[i, col::COLS]
            removed = int((u == REMOVED).sum())
            if removed not in (0, SLOTS // COLS):
                raise bad("up", up[i], f"removes part of column {col} of seat {i} (a column goes as a whole)", i)
            g = grid[i, col::COLS]
            if removed == 0 and np.all(u == UP) and np.all(g == g[0]):
                raise bad("grid", grid[i], f"shows three equal face-up cards in column {col} of seat {i}, "
                          "which the rules remove at once", i)
    # ---- rounds, scores, seats
    # a round takes at least one turn: with max_turns <= 32,767 the 16-bit count never wraps
    round_no = in_range("round_no", r["round_no"], 0, int(r["turn"]))
    if rules.max_rounds is not None and running:
        in_range("round_no", round_no, 0, rules.max_rounds - 1)
    if rules.episode == "round" and running:
        in_range("round_no", round_no, 0, 0)
    last_goer = in_range("last_goer", r["last_goer"], -1, n - 1)
    if (last_goer < 0) != (round_no == 0):
        raise bad("last_goer", last_goer, f"disagrees with round_no={round_no} (-1 exactly before the first "
                  "round ends)")
    all_in_range("scores", r["scores"][:n], ROUND_MIN, ROUND_MAX, "(the points of one round)")
    all_equal("scores", r["scores"][n:], 0, f"seats {n}.. do not play")
    if round_no == 0:
        all_equal("scores", r["scores"], 0, "no round has ended yet")
    all_in_range("totals", r["totals"][:n], ROUND_MIN * round_no, ROUND_MAX * round_no,
                 f"(round_no={round_no} rounds of {ROUND_MIN}..{ROUND_MAX} points)")
    all_equal("totals", r["totals"][n:], 0, f"seats {n}.. do not play")
    end_reason = in_range("end_reason", r["end_reason"], END_NONE, END_TRUNCATED)
    if running:
        if end_reason != END_NONE:
            raise bad("end_reason", end_reason, "should be 0 while the game runs")
        if phase == PH_OVER:
            raise bad("phase", phase, "is the 'over' phase of a running game")
    else:
        if phase != PH_OVER:
            raise bad("phase", phase, f"should be {PH_OVER} (over) once status={status}")
        want = (END_TRUNCATED,) if status == TRUNCATED else (END_GAME, END_STALL)
        if end_reason not in want:
            raise bad("end_reason", end_reason, f"should be one of {list(want)} with status={status}")
    turn = int(r["turn"])
    round_turns = in_range("round_turns", r["round_turns"], 0, turn)
    check_stall(r, rules, running, "stall", round_turns)
    goer = in_range("goer", r["goer"], -1, n - 1)
    final_left = int(r["final_left"])
    setup_done = int(r["setup_done"])
    if not running:
        in_range("final_left", final_left, 0, n - 1)
        in_range("setup_done", setup_done, 0, 0)
        return
    cur = int(r["current"])
    if phase == PH_SETUP:
        if rules.setup_reveal != "choose":
            raise bad("phase", phase, "is the setup phase, which only setup_reveal='choose' has")
        in_range("setup_done", setup_done, 0, 1)
        want = np.where(np.arange(n) < cur, SLOTS - 2, SLOTS)
        want[cur] = SLOTS - setup_done
        all_equal("hidden", r["hidden"][:n], want,
                  f"in the setup phase seats before {cur} revealed 2 cards, seat {cur} {setup_done}, the rest 0")
        for key, value in (("goer", goer), ("final_left", final_left), ("round_turns", round_turns)):
            if value != (-1 if key == "goer" else 0):
                raise bad(key, value, "should be its start-of-round value in the setup phase")
        if discard_len < 1:
            raise bad("discard_len", discard_len, "should be >= 1: the setup phase has a discard pile")
        return
    in_range("setup_done", setup_done, 0, 0)
    if phase == PH_START and discard_len < 1:
        raise bad("discard_len", discard_len, "should be >= 1 at the start of a turn")
    if goer < 0:
        in_range("final_left", final_left, 0, 0)
        zero = np.flatnonzero(hidden == 0)
        if zero.size:
            i = int(zero[0])
            raise bad("goer", goer, f"should be a seat: seat {i} has revealed its whole grid")
    else:
        if hidden[goer] != 0:
            raise bad("goer", goer, f"has {int(hidden[goer])} face-down cards (the seat that goes out has none)")
        in_range("final_left", final_left, 1, n - 1)
        if cur != (goer + n - final_left) % n:
            raise bad("final_left", final_left, f"disagrees with goer={goer} and current={cur} (the last lap "
                      "goes round the table once)")
