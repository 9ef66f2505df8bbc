"""Skip-Bo Junior "expert" bot: a search over the plays of the turn (compiled).

It sees only what its seat sees: every stock top, every hand stack (all face up in Junior), the build
piles and the public card counts (``s.hidden``: what nobody can see, the draw pile and the stocks under
their tops). It never reads a stock under its top or the draw pile.

The search. The stock top, when it fits, is played at once (a number fits one pile value only, and
waiting can only bury it; a wild stock top goes on the pile that leaves the best continuation). Else a
depth-first search runs over every order of hand-stack plays of this turn (plays onto piles of equal
value are one play; a transposition table merges orders that reach the same stacks and pile values):

- a position where the stock top fits is worth one stock card (``STOCK``) plus the chance that the
  next, still hidden, stock card can then be reached too (each code weighted by its public count; a
  small search over the stacks left, ``REACH_NODES``), plus ``LEVEL2`` times the chance of reaching the
  one after it (short chain check), so that of two ways to reach the stock the one spending fewer
  wilds and keeping more useful cards wins;
- a position where the turn ends (no play left with ``must_play``; or, with ``must_play`` off, any
  position, as the bot may stop there) is scored by what it leaves the others and itself: minus the
  chance that each opponent reaches their stock top on the piles left (the next player counts most),
  plus a little for its own stock top, plus the wilds and useful cards still on its stacks when it
  may keep them (``must_play`` off).

The search is capped (``MAX_NODES`` positions a decision); past the cap positions are scored as if
the turn ended there. Ties go to the first action found (no randomness is used). The searches are
iterative with explicit frames: numba's on-disk cache of a self-recursive function crashed on load.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ...kit import pick_legal
from .bots import cut_stack, stack_topped
from .kernels import stock_top
from .rules import END_TURN, NUM_CODES, NUM_PILES, NUM_STACKS, P_MUST_PLAY, TOP, WILD

STOCK = 1000.0  # value of one of my stock cards played this turn
WIN = 1.0e6
CONT = 300.0  # value of the chance that the next stock card is reachable too
MAX_NODES = 4000
TABLE = 4096  # transposition table slots (power of two)
MAX_DEPTH = 48  # plays searched in one line
REACH_NODES = 64  # positions searched to reach the next stock card
LEVEL2 = 0.5  # weight of reaching the stock card after that one too

# end-of-turn weights (in the same units as STOCK)
W_NEXT = 120.0  # the next player reaches their stock top
W_OTHER = 60.0  # a later opponent does
W_ME = 25.0  # my own stock top will fit next turn
W_WILD = 60.0  # a wild kept on a stack top (must_play off)
W_CARD = 4.0  # a card played this turn
Q_GAP = 0.45  # chance of bridging each missing value


class Turn(NamedTuple):
    """What stays fixed while the turn's plays are searched (built once by `bot_expert`)."""

    seat: int  # the seat to act
    st: int  # its stock top
    must: bool  # ``must_play``: the turn cannot end while a play is left


class Table(NamedTuple):
    """The search's transposition table and node count."""

    keys: np.ndarray  # position keys (`_key`), -1: empty slot
    vals: np.ndarray  # their values
    nodes: np.ndarray  # [0]: positions searched so far


@njit(cache=True)
def _after(h, card_value):
    """Pile height after a card of value ``card_value`` (a pile reaching 10 is complete: 0)."""
    if card_value >= TOP:
        return 0
    return card_value


@njit(cache=True)
def _reach_prob(t, h):
    """Rough chance that a player with stock top ``t`` (a number) reaches it on piles ``h``."""
    best = 0.0
    for b in range(NUM_PILES):
        n = h[b] + 1
        if n <= t:
            g = t - n
            pr = Q_GAP ** g
            best = max(best, pr)
    return best


@njit(cache=True)
def _can_reach(s, seat, t, lens, h):
    """Can stock code ``t`` be played after hand-stack plays from this position? A short check: for
    each pile, fill the values up to ``t`` with stack tops (uncovering as it goes), numbers first,
    then wilds."""
    if t == WILD:
        return True
    for b in range(NUM_PILES):
        want = h[b] + 1
        if want > t:
            continue
        l0 = lens[0]
        l1 = lens[1]
        l2 = lens[2]
        ok = True
        while want < t:
            pick = stack_topped(s, seat, l0, l1, l2, want)
            if pick < 0:
                pick = stack_topped(s, seat, l0, l1, l2, WILD)
            if pick < 0:
                ok = False
                break
            l0, l1, l2 = cut_stack(l0, l1, l2, pick)
            want += 1
        if ok:
            return True
    return False


@njit(cache=True)
def _fits(t, h):
    for b in range(NUM_PILES):
        if h[b] + 1 == t:
            return True
    return False


@njit(cache=True)
def _reach(s, seat, t, lens, h, f_idx, f_old):
    """1 + LEVEL2 * (chance the card after ``t`` is reachable too) if stock code ``t`` can be reached,
    else 0 (see ``_reach_line``)."""
    if t == WILD:
        best = 0.0
        for b in range(NUM_PILES):
            v = _second(s, seat, lens, h, b)
            best = max(best, v)
        return 1.0 + LEVEL2 * best
    return _reach_line(s, seat, t, lens, h, f_idx, f_old)


@njit(cache=True)
def _second(s, seat, lens, h, b):
    """Chance (public counts, short chain check) that the next stock card is reachable once the stock
    card has gone on pile ``b``."""
    if LEVEL2 == 0.0:
        return 0.0
    tot = 0
    acc = 0.0
    old = h[b]
    h[b] = _after(old, old + 1)
    for c in range(NUM_CODES):
        m = s.hidden[c]
        if m > 0:
            tot += m
            if _can_reach(s, seat, c, lens, h):
                acc += m
    h[b] = old
    if tot == 0:
        return 0.0
    return acc / tot


@njit(cache=True)
def _fit_pile(t, h):
    for b in range(NUM_PILES):
        if h[b] + 1 == t:
            return b
    return -1


@njit(cache=True)
def _play(lens, h, f_idx, f_old, d, idx):
    """Make move ``idx`` (hand stack ``idx >> 2`` onto build pile ``idx & 3``) from search frame ``d``:
    the frame's next move is ``idx + 1`` and it keeps the pile's old value for `_unplay`."""
    f_idx[d] = idx + 1
    b = idx & 3
    f_old[d] = h[b]
    h[b] = _after(h[b], h[b] + 1)
    lens[idx >> 2] -= 1


@njit(cache=True)
def _unplay(lens, h, f_idx, f_old, d):
    """Take back the move `_play` last made from frame ``d``."""
    idx = f_idx[d] - 1
    lens[idx >> 2] += 1
    h[idx & 3] = f_old[d]


@njit(cache=True)
def _reach_line(s, seat, t, lens, h, f_idx, f_old):
    """Is there an order of hand-stack plays after which stock code ``t`` fits? A depth-first search
    over the plays (at most ``REACH_NODES`` positions; then the short chain check decides).
    ``lens`` and ``h`` are restored on return."""
    if _fits(t, h):
        return 1.0 + LEVEL2 * _second(s, seat, lens, h, _fit_pile(t, h))
    d = 0
    f_idx[0] = 0
    nodes = 0
    found = False
    val = 0.0
    while True:
        idx = f_idx[d]
        while idx < 12 and not _move_ok(s, seat, lens, h, idx):
            idx += 1
        if idx < 12 and nodes < REACH_NODES and d + 1 < f_idx.shape[0]:
            nodes += 1
            _play(lens, h, f_idx, f_old, d, idx)
            if _fits(t, h):
                found = True
                val = 1.0 + LEVEL2 * _second(s, seat, lens, h, _fit_pile(t, h))
                d += 1
                break
            d += 1
            f_idx[d] = 0
            continue
        if d == 0:
            break
        d -= 1
        _unplay(lens, h, f_idx, f_old, d)
    # unwind the line that was found
    while d > 0:
        d -= 1
        _unplay(lens, h, f_idx, f_old, d)
    if found:
        return val
    if nodes >= REACH_NODES and _can_reach(s, seat, t, lens, h):
        return 1.0
    return 0.0


@njit(cache=True)
def _continuation(s, seat, lens, h):
    """Chance (public counts) that the card under my stock top can be reached from this position."""
    f_idx = np.zeros(MAX_DEPTH, np.int64)
    f_old = np.zeros(MAX_DEPTH, np.int64)
    tot = 0
    acc = 0.0
    for c in range(NUM_CODES):
        m = s.hidden[c]
        if m > 0:
            tot += m
            acc += m * _reach(s, seat, c, lens, h, f_idx, f_old)
    if tot == 0:
        return 0.0
    return acc / tot


@njit(cache=True)
def _end_value(s, turn, lens, h, played):
    """Score of ending the turn in this position."""
    seat = turn.seat
    n = s.num_players
    v = 0.0
    for r in range(1, n):
        j = (seat + r) % n
        t = stock_top(s, j)
        if t > 0:
            w = W_NEXT if r == 1 else W_OTHER
            v -= w * _reach_prob(t, h)
    t = stock_top(s, seat)
    if t > 0:
        v += W_ME * _reach_prob(t, h)
    if not turn.must:
        for k in range(NUM_STACKS):
            L = lens[k]
            if L > 0 and s.stacks[seat, k, L - 1] == WILD:
                v += W_WILD
    v += W_CARD * played
    return v


@njit(cache=True)
def _key(lens, h):
    a0 = h[0]
    a1 = h[1]
    a2 = h[2]
    a3 = h[3]
    # sort the four pile values (piles are interchangeable)
    if a0 > a1:
        a0, a1 = a1, a0
    if a2 > a3:
        a2, a3 = a3, a2
    if a0 > a2:
        a0, a2 = a2, a0
    if a1 > a3:
        a1, a3 = a3, a1
    if a1 > a2:
        a1, a2 = a2, a1
    hk = ((a0 * 16 + a1) * 16 + a2) * 16 + a3
    return ((np.int64(lens[0]) * 128 + lens[1]) * 128 + lens[2]) * 65536 + hk


@njit(cache=True)
def _stock_leaf(s, seat, lens, h, played):
    if s.stock_len[seat] <= 1:
        return WIN
    return STOCK + CONT * _continuation(s, seat, lens, h) + W_CARD * played * 0.25


@njit(cache=True)
def _probe(keys, key):
    """Slot of ``key`` in the transposition table, or of the empty slot where it would go (-1: full)."""
    slot = np.int64(key * 2654435761) & (TABLE - 1)
    for _ in range(8):
        if keys[slot] == key or keys[slot] < 0:
            return slot
        slot = (slot + 1) & (TABLE - 1)
    return -1


@njit(cache=True)
def _move_ok(s, seat, lens, h, idx):
    """Is move ``idx`` = 4 * stack + pile a play (and the first of its pile value)?"""
    k = idx >> 2
    b = idx & 3
    L = lens[k]
    if L == 0:
        return False
    c = s.stacks[seat, k, L - 1]
    if c != WILD and h[b] + 1 != c:
        return False
    for b2 in range(b):
        if h[b2] == h[b]:
            return False
    return True


@njit(cache=True)
def _search(s, turn, lens, h, played, table):
    """Best value reachable from this position by hand-stack plays (stock top ``turn.st``, a number):
    an iterative depth-first search (numba cannot cache recursive functions safely). ``lens`` and
    ``h`` are restored on return."""
    seat, must, keys, vals = turn.seat, turn.must, table.keys, table.vals
    f_idx = np.zeros(MAX_DEPTH, np.int64)
    f_best = np.zeros(MAX_DEPTH, np.float64)
    f_moved = np.zeros(MAX_DEPTH, np.bool_)
    f_key = np.zeros(MAX_DEPTH, np.int64)
    f_old = np.zeros(MAX_DEPTH, np.int64)  # pile value before the move made from this frame
    # the value of the position given is either immediate or needs frame 0
    v = _leaf(s, turn, lens, h, played, table, 0)
    if v > -1.0e17:
        return v
    d = 0
    f_idx[0] = 0
    f_moved[0] = False
    f_key[0] = _key(lens, h)
    f_best[0] = _end_value(s, turn, lens, h, played) if not must else -1.0e18
    while True:
        # next move of frame d
        idx = f_idx[d]
        while idx < 12 and not _move_ok(s, seat, lens, h, idx):
            idx += 1
        if idx < 12:
            _play(lens, h, f_idx, f_old, d, idx)
            played += 1
            f_moved[d] = True
            v = _leaf(s, turn, lens, h, played, table, d + 1)
            if v > -1.0e17:
                _unplay(lens, h, f_idx, f_old, d)
                played -= 1
                f_best[d] = max(f_best[d], v)
                continue
            d += 1
            f_idx[d] = 0
            f_moved[d] = False
            f_key[d] = _key(lens, h)
            f_best[d] = _end_value(s, turn, lens, h, played) if not must else -1.0e18
            continue
        # frame d is finished
        v = f_best[d]
        if not f_moved[d]:
            v = _end_value(s, turn, lens, h, played)
        slot = _probe(keys, f_key[d])
        if slot >= 0:
            keys[slot] = f_key[d]
            vals[slot] = v
        if d == 0:
            return v
        d -= 1
        _unplay(lens, h, f_idx, f_old, d)
        played -= 1
        f_best[d] = max(f_best[d], v)


@njit(cache=True)
def _leaf(s, turn, lens, h, played, table, depth):
    """Value of a position that needs no search (stock fits, known, past the caps), else -1e18."""
    for b in range(NUM_PILES):
        if h[b] + 1 == turn.st:
            return _stock_leaf(s, turn.seat, lens, h, played)
    slot = _probe(table.keys, _key(lens, h))
    if slot >= 0 and table.keys[slot] >= 0:
        return table.vals[slot]
    table.nodes[0] += 1
    if table.nodes[0] > MAX_NODES or depth >= MAX_DEPTH:
        return _end_value(s, turn, lens, h, played)
    return -1.0e18


@njit(cache=True)
def bot_expert(s, p, mask):
    """Search over the plays of the turn (see the module docstring)."""
    seat = s.current
    must = p[P_MUST_PLAY] != 0
    st = stock_top(s, seat)
    lens = np.empty(NUM_STACKS, np.int64)
    for k in range(NUM_STACKS):
        lens[k] = s.stack_len[seat, k]
    h = np.empty(NUM_PILES, np.int64)
    for b in range(NUM_PILES):
        h[b] = s.heights[b]
    turn = Turn(seat, st, must)
    # 1. a number stock top that fits: play it now
    if st > 0:
        for b in range(NUM_PILES):
            if mask[b]:
                return b
    # 2. a wild stock top: the pile leaving the best continuation (then the least help to others)
    if st == WILD:
        best = -1
        best_v = -1.0e18
        for b in range(NUM_PILES):
            if not mask[b]:
                continue
            old = h[b]
            h[b] = _after(old, old + 1)
            v = _stock_leaf(s, seat, lens, h, 0) + 0.01 * _end_value(s, turn, lens, h, 0)
            h[b] = old
            if v > best_v:
                best_v = v
                best = b
        if best >= 0:
            return best
    # 3. hand-stack plays: search the orders of this turn
    table = Table(np.full(TABLE, -1, np.int64), np.zeros(TABLE, np.float64), np.zeros(1, np.int64))
    best = -1
    best_v = -1.0e18
    if not must and mask[END_TURN]:
        best = END_TURN
        best_v = _end_value(s, turn, lens, h, 0)
    for a in range(4, 16):
        if not mask[a]:
            continue
        k = (a >> 2) - 1
        b = a & 3
        dup = False
        for b2 in range(b):
            if h[b2] == h[b] and mask[(k + 1) * 4 + b2]:
                dup = True
        if dup:
            continue
        L = lens[k]
        c = s.stacks[seat, k, L - 1]
        old = h[b]
        h[b] = _after(old, old + 1)
        lens[k] = L - 1
        v = _search(s, turn, lens, h, 1, table)
        lens[k] = L
        h[b] = old
        if c == WILD:
            v -= 1e-3  # equal outcomes: numbers before wilds
        if v > best_v:
            best_v = v
            best = a
    if best >= 0:
        return best
    return pick_legal(s, mask)


BOTS = {"expert": bot_expert}
