"""Skip-Bo Junior bots (numba). They read only what the seat to act can see: every stock top, every
hand stack (face up in Junior), the build piles and the public counters; never a stock under its top
or the draw pile."""

from __future__ import annotations

from numba import njit

from ...kit import pick_legal
from .kernels import stack_top, stock_top, wanted
from .rules import END_TURN, NUM_PILES, NUM_STACKS, P_MUST_PLAY, TOP, WILD


@njit(cache=True)
def _next_after(h):
    """Value a pile of height ``h`` needs after one more card (a pile reaching 10 restarts at 1)."""
    if h + 1 >= TOP:
        return 1
    return h + 2


@njit(cache=True)
def _feeds(s, seat, value):
    """Cost of leaving a pile that needs ``value``: opponents whose stock top it is (the next player
    counts most, they move first)."""
    n = s.num_players
    cost = 0
    for r in range(1, n):
        j = (seat + r) % n
        c = stock_top(s, j)
        if c == value:
            cost += 3 if r == 1 else 2
    return cost


@njit(cache=True)
def _holds(s, seat, value):
    """Number of my hand-stack tops showing ``value``."""
    k_count = 0
    for k in range(NUM_STACKS):
        if stack_top(s, seat, k) == value:
            k_count += 1
    return k_count


@njit(cache=True)
def stack_topped(s, seat, l0, l1, l2, code):
    """The first of ``seat``'s hand stacks (cut to lengths ``l0``, ``l1``, ``l2``) whose top is ``code``;
    -1 if none."""
    for k in range(NUM_STACKS):
        L = l0 if k == 0 else (l1 if k == 1 else l2)
        if L > 0 and s.stacks[seat, k, L - 1] == code:
            return k
    return -1


@njit(cache=True)
def cut_stack(l0, l1, l2, k):
    """The three hand-stack lengths after one card is played from stack ``k``."""
    if k == 0:
        return l0 - 1, l1, l2
    if k == 1:
        return l0, l1 - 1, l2
    return l0, l1, l2 - 1


@njit(cache=True)
def _chain(s, seat, b, target):
    """Plays from my hand stacks (uncovering the cards beneath) that bring build pile ``b`` to need
    ``target`` (my numbered stock top). Returns (first action, wilds used, length), action -1 if
    there is no such chain. Numbers are used before wilds; among equal numbers, the stack whose
    uncovered card continues the chain first."""
    want = s.heights[b] + 1
    if want > target:
        return -1, 0, 0
    l0 = s.stack_len[seat, 0]
    l1 = s.stack_len[seat, 1]
    l2 = s.stack_len[seat, 2]
    first = -1
    wilds = 0
    steps = 0
    while want < target:
        pick = -1
        for k in range(NUM_STACKS):
            L = l0 if k == 0 else (l1 if k == 1 else l2)
            fits = L > 0 and s.stacks[seat, k, L - 1] == want
            if fits and (pick < 0 or (L > 1 and s.stacks[seat, k, L - 2] == want + 1)):
                pick = k
        if pick < 0:
            pick = stack_topped(s, seat, l0, l1, l2, WILD)
            if pick >= 0:
                wilds += 1
        if pick < 0:
            return -1, 0, 0
        if first < 0:
            first = (pick + 1) * 4 + b
        l0, l1, l2 = cut_stack(l0, l1, l2, pick)
        want += 1
        steps += 1
    return first, wilds, steps


@njit(cache=True)
def bot_greedy(s, p, mask):
    """Stock first; else the shortest chain of hand-stack plays (fewest wilds) that makes the stock
    card playable; else the best-scoring play: numbers before wilds, plays that uncover a playable
    card, piles moved towards my stock value, never (if avoidable) a pile that then needs an
    opponent's stock card. With ``must_play`` off it ends the turn rather than feed an opponent or
    spend a wild for nothing."""
    seat = s.current
    st = stock_top(s, seat)
    best = -1
    best_score = -1000
    # 1. the stock top
    for b in range(NUM_PILES):
        if mask[b]:
            nv = _next_after(s.heights[b])
            sc = 2 * _holds(s, seat, nv) - _feeds(s, seat, nv)
            if sc > best_score:
                best_score = sc
                best = b
    if best >= 0:
        return best
    # 2. a chain of hand-stack plays that reaches the stock card
    if st > 0:
        best_w = 1000
        best_l = 1000
        for b in range(NUM_PILES):
            a, w, L = _chain(s, seat, b, st)
            if a >= 0 and mask[a] and (w < best_w or (w == best_w and L < best_l)):
                best, best_w, best_l = a, w, L
        if best >= 0:
            return best
    # 3. score the other plays
    bits = wanted(s)
    for a in range(4, 16):
        if mask[a]:
            k = (a >> 2) - 1
            b = a & 3
            c = stack_top(s, seat, k)
            nv = _next_after(s.heights[b])
            sc = 0
            if c == WILD:
                sc -= 4
            L = s.stack_len[seat, k]
            if L > 1:
                u = int(s.stacks[seat, k, L - 2])  # int: bits >> int8 is int8 in plain numpy
                if u == WILD or u == nv or ((bits >> u) & 1):
                    sc += 2
            if st > 0 and nv <= st:
                sc += 1
            sc += _holds(s, seat, nv)
            sc -= _feeds(s, seat, nv)
            if sc > best_score:
                best_score = sc
                best = a
    if mask[END_TURN] and not p[P_MUST_PLAY] and best_score < 0:
        return END_TURN
    if best >= 0:
        return best
    return pick_legal(s, mask)


BOTS = {"greedy": bot_greedy}  # after the core's "random" (bot 0)
