"""Skyjo "expert" bot: expected-value play with card counting, column plans and a doubling-aware
go-out decision (compiled; O(grid) work per decision, no search).

It reads only what the seat to act may see: face-up grid cards (every seat), the discard top, the held
card, the public counters (``seen``; unseen = deck - seen: every face-down grid card and the draw pile)
and the scores/totals. It never reads a face-down value or the draw pile order. Randomness (ties in the
setup reveal) comes from the record's bot generator only.

Valuation. ``U[v]`` = unseen cards of value v, ``N`` = their number, ``E`` = their mean, ``VAR`` = their
variance. Every column of my grid gets an *expected final value* given a horizon ``K`` (the draws I still
expect this round: ``K_SLOPE`` per face-down card of the opponent closest to going out, 0 in my last
turn):

- face-up cards count their value, face-down cards ``E``;
- a *pair plan* (two face-up cards of value v > 0 in a column): the column is removed with probability
  ``P = 1 - (1 - U[v]/N)^(K * PLAN_RATE)`` (plus U[v]/N if the third card is face down: it may be a v;
  the final reveal also removes columns), so it is worth ``(1 - P) * (2v + third)``. When the needed v is
  exhausted (``U[v] = 0``) the plan is dead and the column counts its plain sum.
- a *single* face-up v > 0 over two face-down cards earns a small bonus for the chance to pair it.

An action is worth the drop of my expected grid value it causes (``gain``), plus ``TEMPO`` for every
face-down card it resolves when I'm ahead of the table (resolving cards brings the end nearer). A drawn
card is kept at its best position if that beats discarding it and revealing (the reveal goes to a
column with a pair plan, else the column with the most face-up cards) by ``KEEP_MARGIN``. The discard is
taken when its best gain beats the expected value of drawing (the mean, over the unseen distribution, of
the best of keeping or discarding each value) by ``TAKE_MARGIN``. A card that I discard and that would
complete a column of the next player (or give him a large gain) can be charged ``FEED`` times that gain
(2 players; tuned to 0 = off: charging the absolute gain made the bot hoard cards and lost about 5%).

Going out (an action that leaves me without face-down cards while nobody has gone out) is scored, not
just allowed: my final score ``S`` is exact (all my cards are face up), each opponent is estimated as
visible sum + ``E`` per face-down card - ``LAST_TURN`` (their last turn), with a normal spread
(``VAR`` per face-down card + ``LAST_SD``^2), so the doubling probability ``Pd`` = 1 - prod P(opp > S);
the action is worth ``now - S * (1 + Pd) + GO_BONUS`` and competes with the other actions. If the round
can end the game (a total, with this round's estimate, reaches ``end_score``; or the last round of
``max_rounds``; or ``episode="round"``), it instead compares the chance of winning the game by going out
now with the chance after continuing (normal approximations on the totals) and goes out only if it is
not worse. Like the greedy bot it goes out regardless after 30 turns per player in a round or 2 rounds
of turns without a reveal, so it never stalls a round.

Setup reveals: two opposite corners (0 and 11, or 3 and 8; the pair chosen at random). A same-column
probe was tried and was the weakest choice (-5% against greedy before the other weights were tuned;
random, corners and "another row and column" were within 0.2% after tuning).

Weights (``W_DEFAULT``) were tuned one at a time in 2-player duplicate games against greedy on seeds
1000.. (1600 games per trial); the reported numbers use other seeds (docs/skyjo.md).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from ...kit import bot_below, pick_legal
from .bots import gain
from .rules import (
    A_DRAW,
    A_REPLACE,
    A_TAKE,
    DECK_COUNTS,
    HIDDEN,
    NUM_VALUES,
    P_END_SCORE,
    P_EPISODE,
    P_MAX_ROUNDS,
    P_NUM_PLAYERS,
    PH_DRAWN,
    PH_SETUP,
    PH_START,
    REMOVED,
    SLOTS,
    UP,
)

# weights (indices into W)
K_SLOPE = 0  # draws I still expect per face-down card of the opponent closest to going out
K_BASE = 1  # ... plus this many
PLAN_RATE = 2  # chance per expected draw to land the needed card = PLAN_RATE * U[v] / N
SINGLE = 3  # weight of the single-card pairing bonus
TEMPO = 4  # value of resolving a face-down card (when ahead)
KEEP_MARGIN = 5  # keep a drawn card if its gain beats discard-and-reveal by this much
TAKE_MARGIN = 6  # take the discard if its gain beats the expected gain of drawing by this much
FEED = 7  # weight of the gain my discard gives the next player
LAST_TURN = 8  # expected improvement of an opponent in its last turn
LAST_SD = 9  # extra spread of that improvement
GO_BONUS = 10  # bonus for ending the round myself
SETUP_MODE = 11  # 0 random, 1 same column, 2 opposite corners, 3 random in another row and column
TEMPO_BEHIND = 12  # value of resolving a face-down card when behind
NUM_W = 13

W_DEFAULT = np.array(
    [1.5, 1.0, 1.0, 0.5, 1.0, 2.0, 1.5, 0.0, 3.0, 3.0, -3.0, 2.0, 0.0],
    np.float64,
)

PATIENCE = 30  # turns per player in a round after which going out is always allowed
STUCK_ROUNDS = 2  # after this many rounds of turns without a reveal, skip the end-of-game comparison
STALL_OUT = 8  # after this many, go out at once (the stall guard ends the game as a draw after 20)


#: rows of the odds table (``odds[row, v + 2]`` for a card of value v), computed once a decision from
#: the public card counts
U_ROW = 0  # unseen cards of value v
Q_ROW = 1  # the chance that a face-down card is a v (U[v] / N)
PA_ROW = 2  # the chance to land a v within the horizon


class View(NamedTuple):
    """The seat to act's view of the decision, computed once: every value helper reads it, with the
    ``odds`` table and the weights ``w`` (arrays are passed apart: read from a tuple, an array costs
    reference counting on every call of these hot helpers)."""

    me: int  # the seat to act
    nxt: int  # the next seat
    N: float  # unseen cards
    E: float  # their mean value
    VAR: float  # their variance
    cv: tuple  # expected final points of my four columns
    now: float  # their sum: my expected points now
    tempo: float  # value of resolving a face-down card
    forced: bool  # a long or stuck round: going out is always allowed


@njit(cache=True)
def _phi(x):
    return 0.5 * (1.0 + math.erf(x / 1.4142135623730951))


@njit(cache=True)
def _col_value(ua, va, ub, vb, uc, vc, odds, E, w):
    """Expected final points of a column from its three slots (state, value); ``E``: the mean unseen
    value."""
    if ua == REMOVED:
        return 0.0
    nh = 0
    base = 0.0
    if ua == UP:
        base += va
    else:
        nh += 1
        base += E
    if ub == UP:
        base += vb
    else:
        nh += 1
        base += E
    if uc == UP:
        base += vc
    else:
        nh += 1
        base += E
    if nh == 3:
        return base
    if nh == 0:
        # a pair with a different third card: complete it by placing the value on the odd one out
        if va == vb and vc != va:
            v, x = va, vc
        elif va == vc and vb != va:
            v, x = va, vb
        elif vb == vc and va != vb:
            v, x = vb, va
        else:
            return base
        if v <= 0 or 2 * v + x <= 0:
            return base
        return base - odds[PA_ROW, v + 2] * (2 * v + x)
    if nh == 1:
        # two face-up cards: a pair plan if they are equal
        if ua != UP:
            v1, v2 = vb, vc
        elif ub != UP:
            v1, v2 = va, vc
        else:
            v1, v2 = va, vb
        if v1 != v2:
            return base
        v = v1
        pn = odds[Q_ROW, v + 2]  # the face-down card is a v (removed at its reveal or at the final reveal)
        pa = odds[PA_ROW, v + 2] if v > 0 else 0.0
        pc = pn + (1.0 - pn) * pa
        # value when not removed: 2v + E (approximately); removed: 0
        return (1.0 - pc) * (2 * v + E)
    # one face-up card over two face-down ones: a small bonus for the chance to pair it
    if ua == UP:
        v = va
    elif ub == UP:
        v = vb
    else:
        v = vc
    if v <= 0:
        return base
    q = odds[Q_ROW, v + 2]
    # chance that one of the two hidden cards is a v, times a share of the pair's value
    p2 = 1.0 - (1.0 - q) * (1.0 - q)
    return base - w[SINGLE] * p2 * odds[PA_ROW, v + 2] * (2 * v + E)


@njit(cache=True)
def _col(s, seat, col, odds, E, w):
    return _col_value(
        s.up[seat, col], s.grid[seat, col], s.up[seat, col + 4], s.grid[seat, col + 4],
        s.up[seat, col + 8], s.grid[seat, col + 8], odds, E, w,
    )


@njit(cache=True)
def _col_with(s, seat, pos, c, odds, E, w):
    """Column value of ``pos``'s column after putting value ``c`` face up at ``pos``."""
    col = pos % 4
    ua = s.up[seat, col]
    va = s.grid[seat, col]
    ub = s.up[seat, col + 4]
    vb = s.grid[seat, col + 4]
    uc = s.up[seat, col + 8]
    vc = s.grid[seat, col + 8]
    if pos == col:
        ua = UP
        va = c
    elif pos == col + 4:
        ub = UP
        vb = c
    else:
        uc = UP
        vc = c
    if ua == UP and ub == UP and uc == UP and va == vb and vb == vc:
        return 0.0  # the column is removed
    return _col_value(ua, va, ub, vb, uc, vc, odds, E, w)


@njit(cache=True)
def _visible(s, seat):
    t = 0.0
    for pos in range(SLOTS):
        if s.up[seat, pos] == UP:
            t += s.grid[seat, pos]
    return t


@njit(cache=True)
def _simple_gain(s, seat, c, E):
    """The best immediate gain of value ``c`` for ``seat`` (plain expected sums; completing a column
    counts its whole content)."""
    best = 0.0
    for pos in range(SLOTS):
        if s.up[seat, pos] != REMOVED:  # a column goes whole: the rest of it is up or hidden too
            best = max(best, gain(s, seat, pos, c, E))
    return best


@njit(cache=True)
def _out_value(s, p, v, w, final_pts, cont):
    """Value of going out with exact final points ``final_pts`` (my grid after the action), relative to
    ``v.now`` (my current expected points). ``cont`` = my expected points if I do not go out (for the
    end-of-game comparison). Returns a value in gain units, or -1e9 to forbid."""
    me, now, E, VAR = v.me, v.now, v.E, v.VAR
    n = p[P_NUM_PLAYERS]
    S = final_pts
    if s.round_turns >= PATIENCE * n or s.stall >= STALL_OUT * n:
        return 100.0 + now - S  # a long or stuck round: go out (never stall)
    forced = s.stall >= STUCK_ROUNDS * n
    # doubling probability
    pnot = 1.0
    for i in range(n):
        if i == me:
            continue
        h = s.hidden[i]
        mu = _visible(s, i) + E * h - w[LAST_TURN]
        sd = math.sqrt(h * VAR + w[LAST_SD] * w[LAST_SD]) + 1e-6
        # P(opp <= S) with integer points: P(X < S + 0.5)
        pnot *= 1.0 - _phi((S + 0.5 - mu) / sd)
    pd = 1.0 - pnot if S > 0 else 0.0
    eff = S * (1.0 + pd)
    # does this round end the game?
    ends = p[P_EPISODE] == 1 or (p[P_MAX_ROUNDS] > 0 and s.round_no + 1 >= p[P_MAX_ROUNDS])
    if p[P_MAX_ROUNDS] == 0 and not ends:
        if s.totals[me] + eff >= p[P_END_SCORE]:
            ends = True
        for i in range(n):
            if i != me:
                mu = _visible(s, i) + E * s.hidden[i] - w[LAST_TURN]
                if s.totals[i] + mu >= p[P_END_SCORE]:
                    ends = True
    if ends and not forced:
        my_t = float(s.totals[me])
        pw_out = 1.0
        pw_cont = 1.0
        my_h = s.hidden[me]
        for i in range(n):
            if i == me:
                continue
            h = s.hidden[i]
            mu = _visible(s, i) + E * h
            sd = math.sqrt(h * VAR + w[LAST_SD] * w[LAST_SD]) + 1e-6
            ti = float(s.totals[i])
            pw_out *= 1.0 - _phi((my_t + eff + 0.5 - ti - (mu - w[LAST_TURN])) / sd)
            sd2 = math.sqrt(h * VAR + my_h * VAR + 2.0 * w[LAST_SD] * w[LAST_SD]) + 1e-6
            pw_cont *= 1.0 - _phi((my_t + cont + 0.5 - ti - mu) / sd2)
        if pw_out + 1e-9 < pw_cont:
            return -1e9
        return 100.0 * (pw_out - pw_cont) + now - eff
    return now - eff + w[GO_BONUS]


@njit(cache=True)
def _setup(s, me, mask, w):
    mode = int(w[SETUP_MODE])
    if mode == 0:
        return pick_legal(s, mask)
    first = -1
    for pos in range(SLOTS):
        if s.up[me, pos] == UP:
            first = pos
            break
    if mode == 1:
        if first < 0:
            return bot_below(s, 4)  # a random column, top row
        col = first % 4
        for r in range(3):
            q = col + 4 * r
            if mask[q]:
                return q
        return pick_legal(s, mask)
    if mode == 3:  # a random card, then one in another row and column
        if first < 0:
            return bot_below(s, SLOTS)
        k = bot_below(s, 6)
        for pos in range(SLOTS):
            if pos % 4 != first % 4 and pos // 4 != first // 4:
                if k == 0:
                    return pos
                k -= 1
        return pick_legal(s, mask)
    # mode 2: opposite corners
    if first < 0:
        return 0 if bot_below(s, 2) == 0 else 3
    opp = 11 - first
    if mask[opp]:
        return opp
    return pick_legal(s, mask)


@njit(cache=True)
def expert_action(s, p, mask, w):
    me = s.current
    ph = s.phase
    if ph == PH_SETUP:
        return _setup(s, me, mask, w)
    n = p[P_NUM_PLAYERS]
    # public card counts
    odds = np.zeros((3, NUM_VALUES), np.float64)
    U, Q, PA = odds[U_ROW], odds[Q_ROW], odds[PA_ROW]
    N = 0.0
    tot = 0.0
    tot2 = 0.0
    for v in range(NUM_VALUES):
        c = DECK_COUNTS[v] - s.seen[v]
        c = max(c, 0)
        U[v] = c
        N += c
        tot += c * (v - 2)
        tot2 += c * (v - 2) * (v - 2)
    if N > 0:
        E = tot / N
        VAR = tot2 / N - E * E
    else:
        E = 5.0
        VAR = 15.0
    # horizon
    last_turn = s.goer >= 0
    hmin = 99
    opp_best = 1e9
    for i in range(n):
        if i == me:
            continue
        hmin = min(hmin, s.hidden[i])
        est = _visible(s, i) + E * s.hidden[i]
        opp_best = min(opp_best, est)
    K = 0.0 if last_turn else w[K_SLOPE] * hmin + w[K_BASE]
    rate = w[PLAN_RATE] * K
    if N > 0:
        for v in range(NUM_VALUES):
            q = U[v] / N
            Q[v] = q
            if q > 0.0 and rate > 0.0:
                PA[v] = 1.0 - (1.0 - q) ** rate
    # my columns
    cv = (_col(s, me, 0, odds, E, w), _col(s, me, 1, odds, E, w), _col(s, me, 2, odds, E, w),
          _col(s, me, 3, odds, E, w))
    now = cv[0] + cv[1] + cv[2] + cv[3]
    my_est = _visible(s, me) + E * s.hidden[me]
    tempo = 0.0
    if not last_turn:
        tempo = w[TEMPO] if my_est <= opp_best else w[TEMPO_BEHIND]
    nxt = (me + 1) % n
    forced = s.round_turns >= PATIENCE * n or s.stall >= STUCK_ROUNDS * n
    view = View(me, nxt, N, E, VAR, cv, now, tempo, forced)

    if ph == PH_START:
        if mask[A_DRAW] == 0:
            return A_TAKE
        d = s.discard[s.discard_len - 1]
        take_v = _best_place_value(s, p, view, odds, w, d)
        rev_v = _best_reveal_value(s, p, view, odds, w)
        ev = 0.0
        for v in range(NUM_VALUES):
            if U[v] <= 0:
                continue
            pv = _best_place_value(s, p, view, odds, w, v - 2)
            rv = rev_v
            if n == 2 and w[FEED] != 0.0:
                rv -= w[FEED] * _simple_gain(s, nxt, v - 2, E)
            if pv - w[KEEP_MARGIN] > rv:
                ev += U[v] * pv
            else:
                ev += U[v] * rv
        ev /= N if N > 0 else 1.0
        if take_v >= ev + w[TAKE_MARGIN]:
            return A_TAKE
        return A_DRAW

    c = s.held
    best_v = -1e18
    best_a = -1
    # placements
    for pos in range(SLOTS):
        u = s.up[me, pos]
        if u == REMOVED:
            continue
        val = _place_value(s, p, view, odds, w, pos, c)
        if val > best_v:
            best_v = val
            best_a = A_REPLACE + pos
    if ph == PH_DRAWN:
        feed = w[FEED] * _simple_gain(s, nxt, c, E) if (n == 2 and w[FEED] != 0.0) else 0.0
        rbest = -1e18
        rpos = -1
        for pos in range(SLOTS):
            if s.up[me, pos] != HIDDEN:
                continue
            val = _reveal_value(s, p, view, odds, w, pos)
            if val > rbest:
                rbest = val
                rpos = pos
        if rpos >= 0 and rbest - feed >= best_v - w[KEEP_MARGIN]:
            return rpos
    if best_a < 0:
        return pick_legal(s, mask)
    return best_a


@njit(cache=True)
def _final_points(s, me, pos, c):
    """My exact points if ``c`` goes face up at ``pos`` and every other card of mine is face up."""
    t = 0.0
    for col in range(4):
        a = s.grid[me, col] if col != pos else c
        b = s.grid[me, col + 4] if col + 4 != pos else c
        d = s.grid[me, col + 8] if col + 8 != pos else c
        if s.up[me, col] == REMOVED:
            continue
        if a == b and b == d:
            continue
        t += a + b + d
    return t


@njit(cache=True)
def _place_value(s, p, v, odds, w, pos, c):
    """Value of putting value ``c`` face up at ``pos`` of my grid (`View` ``v``)."""
    me = v.me
    u = s.up[me, pos]
    col = pos % 4
    old = v.cv[col]
    new = _col_with(s, me, pos, c, odds, v.E, w)
    g = old - new
    if u == HIDDEN:
        if s.hidden[me] == 1 and s.goer < 0:
            # going out
            S = _final_points(s, me, pos, c)
            return _out_value(s, p, v, w, S, v.now - g)
        g += v.tempo
    elif u == UP and p[P_NUM_PLAYERS] == 2 and w[FEED] != 0.0:
        g -= w[FEED] * _simple_gain(s, v.nxt, s.grid[me, pos], v.E)
    return g


@njit(cache=True)
def _best_place_value(s, p, v, odds, w, c):
    best = -1e18
    for pos in range(SLOTS):
        if s.up[v.me, pos] == REMOVED:
            continue
        val = _place_value(s, p, v, odds, w, pos, c)
        best = max(best, val)
    return best


@njit(cache=True)
def _reveal_value(s, p, v, odds, w, pos):
    """Value of revealing my face-down card at ``pos`` (an expectation over the unseen values)."""
    me, N = v.me, v.N
    col = pos % 4
    old = v.cv[col]
    if s.hidden[me] == 1 and s.goer < 0:
        # going out by revealing my last card: expectation over its value
        tot = 0.0
        for x in range(NUM_VALUES):
            if odds[U_ROW, x] <= 0:
                continue
            S = _final_points(s, me, pos, x - 2)
            tot += odds[U_ROW, x] * _out_value(s, p, v, w, S, v.now)
        return tot / N if N > 0 else -1e9
    exp_new = 0.0
    for x in range(NUM_VALUES):
        if odds[U_ROW, x] <= 0:
            continue
        exp_new += odds[U_ROW, x] * _col_with(s, me, pos, x - 2, odds, v.E, w)
    exp_new /= N if N > 0 else 1.0
    # prefer columns with more face-up cards (information where it can be used) as a tie-break
    k = 0
    for r in range(3):
        if s.up[me, col + 4 * r] == UP:
            k += 1
    return old - exp_new + v.tempo + 0.01 * k


@njit(cache=True)
def _best_reveal_value(s, p, v, odds, w):
    best = -1e18
    for pos in range(SLOTS):
        if s.up[v.me, pos] != HIDDEN:
            continue
        val = _reveal_value(s, p, v, odds, w, pos)
        best = max(best, val)
    return best


@njit(cache=True)
def bot_expert(s, p, mask):
    return expert_action(s, p, mask, W_DEFAULT)


BOTS = {"expert": bot_expert}
