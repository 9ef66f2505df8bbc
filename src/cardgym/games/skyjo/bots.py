"""Skyjo bots (after the core's ``random``): ``bot_greedy`` (an expected-value threshold player).

The greedy bot only reads what the seat to act may see: face-up grid cards, the discard pile, the held
card and the public counters (``seen``: every face-up card; unseen = deck - seen). A face-down card
(its own or an opponent's) is valued at ``E``, the mean of the unseen cards.

Its policy, per decision:

- *setup reveal*: a random face-down card.
- *placing a card c at p* is worth ``gain(c, p)`` = expected points of p's column before minus after
  (face-down cards count E; a column that becomes three equal face-up values counts 0, so completing a
  column is worth its whole content).
- *start of turn*: take the discard top d if its best gain beats the expected gain of drawing
  (``sum_v P(v) * gain of keeping v``, over the unseen distribution) by a margin of 1.5; else draw.
- *holding a drawn card*: replace the best position if its gain >= 3; else discard it and reveal a
  face-down card in the column with the most face-up cards (a possible column; ties at random).
- *holding the taken card*: replace the best position.
- *going out* (an action that leaves no face-down card while nobody has gone out yet) is avoided unless
  it looks safe: my expected score is <= 0 or strictly below every opponent's estimate (their visible sum
  + E per face-down card - 8, a margin for their last turn). It goes out anyway after 30 turns per
  player in a round, or after 2 rounds of turns in which nobody revealed a card, so cautious bots cannot
  stall a round.

The thresholds (keep >= 3, take margin 1.5, going-out margin 8) were tuned in 2-player head-to-head
matches (3000 games each) against the first version (1, 0.5, 2): the tuned bot wins 62.7% of 2-player
and 33.1% of 4-player games against it (50% / 25% = even).
"""

from __future__ import annotations

from numba import njit

from ...kit import bot_below, pick_legal
from .rules import (
    A_DRAW,
    A_REPLACE,
    A_TAKE,
    DECK_COUNTS,
    HIDDEN,
    NUM_VALUES,
    P_NUM_PLAYERS,
    PH_DRAWN,
    PH_SETUP,
    PH_START,
    REMOVED,
    SLOTS,
    UP,
)

KEEP_MIN_GAIN = 3.0  # keep a drawn card if it improves the grid by at least this much
TAKE_MARGIN = 1.5  # take the discard if its gain beats the expected gain of drawing by this much
OPP_LAST_TURN = 8.0  # margin: how much an opponent may still improve before the round ends
PATIENCE = 30  # turns per player in a round after which the bot goes out regardless
STUCK_ROUNDS = 2  # ... or after this many rounds of turns in which nobody revealed a card


@njit(cache=True)
def _mean_unseen(s):
    tot = 0.0
    cnt = 0.0
    for v in range(NUM_VALUES):
        c = DECK_COUNTS[v] - s.seen[v]
        tot += c * (v - 2)
        cnt += c
    if cnt <= 0:
        return 5.0
    return tot / cnt


@njit(cache=True)
def _slot_ev(s, seat, pos, E):
    u = s.up[seat, pos]
    if u == UP:
        return float(s.grid[seat, pos])
    if u == HIDDEN:
        return E
    return 0.0


@njit(cache=True)
def gain(s, me, pos, c, E):
    """Expected points saved by putting card value ``c`` at ``pos`` (face up)."""
    col = pos % 4
    q1 = col if pos != col else col + 4
    q2 = col + 8 if pos != col + 8 else col + 4
    others = _slot_ev(s, me, q1, E) + _slot_ev(s, me, q2, E)
    before = _slot_ev(s, me, pos, E) + others
    if (
        s.up[me, q1] == UP
        and s.up[me, q2] == UP
        and s.grid[me, q1] == c
        and s.grid[me, q2] == c
    ):
        return before
    return before - (c + others)


@njit(cache=True)
def _expected_score(s, seat, E):
    t = 0.0
    for pos in range(SLOTS):
        t += _slot_ev(s, seat, pos, E)
    return t


@njit(cache=True)
def _safe_to_go_out(s, p, me, my_score):
    """Would ending the round with an expected ``my_score`` avoid the doubling?"""
    n = p[P_NUM_PLAYERS]
    if s.round_turns >= PATIENCE * n or s.stall >= STUCK_ROUNDS * n:
        return True
    if my_score <= 0.0:
        return True
    E = _mean_unseen(s)
    for i in range(n):
        if i != me and _expected_score(s, i, E) - OPP_LAST_TURN <= my_score:
            return False
    return True


@njit(cache=True)
def _best_place(s, p, me, c, E, allow_out):
    """Best (gain, pos) for placing ``c``; positions that would take me out are skipped unless
    ``allow_out``. Returns (-1e9, -1) if none."""
    best = -1e9
    where = -1
    hid = s.hidden[me]
    total = _expected_score(s, me, E) if (hid == 1 and s.goer < 0 and not allow_out) else 0.0
    for pos in range(SLOTS):
        u = s.up[me, pos]
        if u == REMOVED:
            continue
        g = gain(s, me, pos, c, E)
        if (u == HIDDEN and hid == 1 and s.goer < 0 and not allow_out
                and not _safe_to_go_out(s, p, me, total - g)):
            continue
        if g > best:
            best = g
            where = pos
    return best, where


@njit(cache=True)
def _reveal_pos(s, me):
    """A face-down position in the column with the most face-up cards (ties at random)."""
    best = -1
    count = 0
    choice = -1
    for pos in range(SLOTS):
        if s.up[me, pos] != HIDDEN:
            continue
        col = pos % 4
        k = 0
        for r in range(3):
            if s.up[me, col + 4 * r] == UP:
                k += 1
        if k > best:
            best = k
            count = 1
            choice = pos
        elif k == best:
            count += 1
            if bot_below(s, count) == 0:
                choice = pos
    return choice


@njit(cache=True)
def bot_greedy(s, p, mask):
    me = s.current
    ph = s.phase
    if ph == PH_SETUP:
        return pick_legal(s, mask)
    E = _mean_unseen(s)
    if ph == PH_START:
        if mask[A_DRAW] == 0:
            return A_TAKE
        d = s.discard[s.discard_len - 1]
        take_gain, _ = _best_place(s, p, me, d, E, False)
        # expected gain of drawing: keep the drawn card if its gain >= KEEP_MIN_GAIN, else reveal (0)
        tot = 0.0
        cnt = 0.0
        for v in range(NUM_VALUES):
            c = DECK_COUNTS[v] - s.seen[v]
            if c <= 0:
                continue
            g, _ = _best_place(s, p, me, v - 2, E, False)
            if g < KEEP_MIN_GAIN:
                g = 0.0
            tot += c * g
            cnt += c
        draw_gain = tot / cnt if cnt > 0 else 0.0
        if take_gain >= draw_gain + TAKE_MARGIN and take_gain > 0.0:
            return A_TAKE
        return A_DRAW
    c = s.held
    g, pos = _best_place(s, p, me, c, E, False)
    if ph == PH_DRAWN:
        if pos >= 0 and g >= KEEP_MIN_GAIN:
            return A_REPLACE + pos
        # discard and reveal, unless revealing the last card would take me out unsafely
        if s.hidden[me] == 1 and s.goer < 0:
            r = _reveal_pos(s, me)
            mine = _expected_score(s, me, E)
            if _safe_to_go_out(s, p, me, mine):
                return r
            if pos >= 0:
                return A_REPLACE + pos
            return r
        r = _reveal_pos(s, me)
        if r >= 0:
            return r
        if pos >= 0:
            return A_REPLACE + pos
        return pick_legal(s, mask)
    # taken from the discard: must replace
    if pos < 0:
        g, pos = _best_place(s, p, me, c, E, True)
    if pos >= 0:
        return A_REPLACE + pos
    return pick_legal(s, mask)


#: the simple bots, in the order of the compiled dispatch (then ``expert.BOTS``, ``search.BOTS``)
BOTS = {"greedy": bot_greedy}  # after the core's "random" (bot 0)
