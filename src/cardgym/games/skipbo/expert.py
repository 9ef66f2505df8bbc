"""Skip-Bo "expert" bot (compiled): a stock-path planner with a wild economy and tidy discards.

It decides each action from what the acting seat may see -- its own hand, every stock top, every
discard pile (they are open), the build piles -- and re-plans after every play. It never reads another
hand, a stock below its top card or the draw pile, and it uses no randomness. Only actions with
``mask[a] == 1`` are chosen, so ``wild_must_be_covered`` and ``two_up_two_down`` are respected (the pile
needs are read with the rules' own ``need`` / ``pile_step``). In this order:

1. ``wild_must_be_covered``: cover the pending wild (stock tops first, then discard tops, the hand last).
2. A stock top that fits is played at once (own, then the partner's in teams). A wild stock top goes
   on the pile whose next value the seat can continue from its own cards and that does not open an
   opponent's stock top.
3. **Stock-path planner over every source.** For each build pile, a small depth-first search assigns
   every value between the pile's need and the stock top to a source: the own discard tops (following
   each pile downwards as its top is used), the hand, in teams the partner's stock top and discard
   tops (and the own stock top when the target is the partner's stock), and wilds last. The plan of
   least cost is started (weights ``KNOBS``: a wild 100, a numbered discard top 2, a hand card 1, a stock card
   0; at most 3 wilds); ties go to the plan that leaves no opponent stock top playable. Teams: then the same for
   the partner's stock top.
4. **Wild economy.** Outside such a plan (and the cover) a wild is never played, except when the draw
   pile and the completed stack are empty and the table must move.
5. **Hand emptying.** Without wilds in hand, if every hand card can be played out (with the help of the
   own / partner's discard tops), it does so to draw five new cards and re-plan.
6. **Dead cards out.** Hand cards and discard tops that cannot help the stock plan (no pile could use
   them on the way to the stock top: "cards >= the stock value") are played onto the piles, discard
   tops first -- as a tie-breaker, never onto a pile that would then take the next opponent's stock top.
7. **Discard scoring.** Every (card, pile) pair is scored: onto the same value or the value just above
   (descending runs that later play out upwards), a free pile kept for a high card while other piles
   remain, never onto a wild, never burying a lower card when avoidable; the card given up is one that
   does not help the stock plan (duplicates and high cards first). A wild is discarded only when the
   hand holds nothing else.
8. Pass when the hand is empty and nothing can be drawn.

Pure heuristics with a bounded search (``MAX_NODES`` per pile plan): thousands of games per second.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ...kit import pick_legal
from .bots import disc_action
from .kernels import disc_top, need, next_need, partner_of, pile_step, stock_top
from .rules import (
    A_DISCARD,
    A_PASS,
    NUM_CODES,
    NUM_DISCARDS,
    NUM_PILES,
    S_DISCARD,
    S_HAND_WILD,
    S_PARTNER_DISCARD,
    S_PARTNER_STOCK,
    S_STOCK,
)

MAX_NODES = 600  # search positions per pile plan
C_STOCK = 0  # plan cost of a stock top of the team (progress in itself)

# tuned weights (index: meaning)
K_WILD = 0  # plan cost of a wild spent on a stock path
K_DISC = 1  # plan cost of a numbered discard top (uncovers the card below)
K_HAND = 2  # plan cost of a numbered hand card
K_MAX_WILDS = 3  # plans needing more wilds are not started
K_DEAD_VETO = 4  # 1: dead cards are not played onto a pile that then takes an opponent's stock top
K_PLAY_USEFUL = 5  # 1: also play cards that could help the stock plan (when no opponent is opened)
K_EMPTY_VETO = 6  # 1: no hand emptying that opens an opponent's stock top
K_KEEP = 7  # discard: penalty for giving up a card that helps the stock plan
K_DUP = 8  # discard: bonus for giving up a duplicate
K_FREE = 9  # discard: base score of a free pile while another one is free
K_PLAN_THREAT = 10  # plan tie-break weight of opening an opponent's stock top
K_SAME = 11  # discard onto the same value
K_RUN = 12  # discard onto the value just above
NUM_K = 13
KNOBS = np.array([100, 2, 1, 3, 0, 0, 0, 100, 30, 60, 1, 100, 95], np.int64)

# source codes of a plan step
_SRC_PDISC = 4  # 4..7: partner's discard piles
_SRC_PSTOCK = 8
_SRC_STOCK = 9
_SRC_HAND = 10
_SRC_WILD = 11
_NSRC = 12


class View(NamedTuple):
    """The decision's fixed context, built once by `expert_action` and read by every helper."""

    p: np.ndarray  # the rule parameters
    K: np.ndarray  # the weights (``KNOBS``)
    mask: np.ndarray  # the legal actions
    seat: int  # the seat to act
    partner: int  # its partner in teams, else -1


class Plan(NamedTuple):
    """Scratch arrays of one pile plan's depth-first search (`_plan_pile`)."""

    pos: np.ndarray  # [0:4] own discard piles, [4:8] the partner's: cards left unused in each
    opt: np.ndarray  # the source used at each depth (-1: none yet)
    cst: np.ndarray  # the plan's cost up to each depth
    used: np.ndarray  # [0..12] hand cards used per code, [13] partner's stock top used, [14] own stock top
    first_of: np.ndarray  # [0]: the first action of the plan being built


@njit(cache=True)
def _next_opponent(s, vw):
    seat, partner = vw.seat, vw.partner
    n = s.num_players
    for k in range(1, n):
        i = (seat + k) % n
        if i != partner:
            return i
    return -1


@njit(cache=True)
def _threat(s, vw, x):
    """How bad is a pile needing ``x`` at the end of our plays: the next opponent's numbered stock top
    counts 3, any other opponent's 1."""
    n = s.num_players
    nxt = _next_opponent(s, vw)
    t = 0
    for i in range(n):
        if i == vw.seat or i == vw.partner:
            continue
        if stock_top(s, i) == x:
            t += 3 if i == nxt else 1
    return t


@njit(cache=True)
def _action(src, b):
    if src < _SRC_PSTOCK:  # a discard pile, own or the partner's
        return disc_action(src, b)
    if src == _SRC_PSTOCK:
        return S_PARTNER_STOCK * 4 + b
    if src == _SRC_STOCK:
        return S_STOCK * 4 + b
    return -1  # hand: depends on the value


@njit(cache=True)
def _plan_pile(s, vw, b, target, own_stock_src, plan):
    """Cheapest assignment of sources to the values pile ``b`` needs before ``target``.

    Returns (first action, cost, wilds); first action -1 if impossible. ``plan``: the scratch arrays."""
    p, K, seat, partner = vw.p, vw.K, vw.seat, vw.partner
    pos, opt, cst, used, first_of = plan
    v0 = need(s, p, b)
    step = pile_step(p, b)
    k = (target - v0) * step
    if k <= 0 or k > 11:
        return -1, 0, 0
    for d in range(NUM_DISCARDS):
        pos[d] = s.disc_len[seat, d]
        pos[NUM_DISCARDS + d] = s.disc_len[partner, d] if partner >= 0 else 0
    pst = stock_top(s, partner) if partner >= 0 else -1
    st = stock_top(s, seat) if own_stock_src else -1
    best_cost = 1 << 30
    best_first = -1
    best_wilds = 0
    # used[0..12]: hand cards used per code; used[13]: partner stock used; used[14]: own stock used
    for c in range(16):
        used[c] = 0
    depth = 0
    opt[0] = -1
    cst[0] = 0
    nodes = 0
    wilds = 0
    while depth >= 0:
        if depth == k:
            if cst[k] < best_cost:
                best_cost = cst[k]
                best_first = first_of[0]
                best_wilds = wilds
            depth -= 1
            continue
        val = v0 + depth * step
        o = opt[depth]
        # undo the option currently applied at this depth
        if o >= 0:
            if o < 2 * NUM_DISCARDS:
                who = seat if o < NUM_DISCARDS else partner
                if s.disc[who, o % NUM_DISCARDS, pos[o]] == 0:
                    wilds -= 1
                pos[o] += 1
            elif o == _SRC_PSTOCK:
                used[13] = 0
                if pst == 0:
                    wilds -= 1
            elif o == _SRC_STOCK:
                used[14] = 0
                if st == 0:
                    wilds -= 1
            elif o == _SRC_HAND:
                used[val] -= 1
            else:
                used[0] -= 1
                wilds -= 1
        nodes += 1
        if nodes > MAX_NODES:
            break
        # next available option
        found = -1
        add = 0
        isw = False
        for q in range(o + 1, _NSRC):
            if q < 2 * NUM_DISCARDS:
                if pos[q] > 0:
                    who = seat if q < NUM_DISCARDS else partner
                    c = s.disc[who, q % NUM_DISCARDS, pos[q] - 1]
                    if c == val:
                        found, add, isw = q, K[K_DISC], False
                        break
                    if c == 0:
                        found, add, isw = q, K[K_WILD] - 1, True
                        break
            elif q == _SRC_PSTOCK:
                if used[13] == 0 and pst >= 0 and (pst == val or pst == 0):
                    found, add, isw = q, C_STOCK, pst == 0
                    break
            elif q == _SRC_STOCK:
                if used[14] == 0 and st >= 0 and (st == val or st == 0):
                    found, add, isw = q, C_STOCK, st == 0
                    break
            elif q == _SRC_HAND:
                if s.hand[seat, val] - used[val] > 0:
                    found, add, isw = q, K[K_HAND], False
                    break
            else:
                if s.hand[seat, 0] - used[0] > 0:
                    found, add, isw = q, K[K_WILD], True
                    break
        if found < 0:
            opt[depth] = -1
            depth -= 1
            continue
        newcost = cst[depth] + add
        opt[depth] = found
        # apply
        if found < 2 * NUM_DISCARDS:
            pos[found] -= 1
        elif found == _SRC_PSTOCK:
            used[13] = 1
        elif found == _SRC_STOCK:
            used[14] = 1
        elif found == _SRC_HAND:
            used[val] += 1
        else:
            used[0] += 1
        if isw:
            wilds += 1
        if depth == 0:
            if found == _SRC_HAND:
                first_of[0] = val * 4 + b
            elif found == _SRC_WILD:
                first_of[0] = S_HAND_WILD * 4 + b
            else:
                first_of[0] = _action(found, b)
        if newcost >= best_cost or wilds > K[K_MAX_WILDS]:
            continue  # prune: stay at this depth, try the next option
        cst[depth + 1] = newcost
        depth += 1
        opt[depth] = -1
    return best_first, best_cost, best_wilds


@njit(cache=True)
def _best_plan(s, vw, w, target, own_stock_src):
    """The first action of the cheapest legal plan bringing a pile to ``target`` (-1: none); ``w`` is
    scratch space."""
    plan = Plan(w[0:8], w[8:21], w[21:34], w[34:50], w[50:51])
    best = -1
    best_key = 1 << 40
    for b in range(NUM_PILES):
        a, cost, _wilds = _plan_pile(s, vw, b, target, own_stock_src, plan)
        if a >= 0 and vw.mask[a]:
            key = cost * 16 + vw.K[K_PLAN_THREAT] * _threat(s, vw, next_need(vw.p, b, target))
            if key < best_key:
                best_key = key
                best = a
    return best


@njit(cache=True)
def _cover(s, p, mask):
    b = s.cover
    for src in (S_STOCK, S_PARTNER_STOCK, S_DISCARD, S_DISCARD + 1, S_DISCARD + 2, S_DISCARD + 3,
                S_PARTNER_DISCARD, S_PARTNER_DISCARD + 1, S_PARTNER_DISCARD + 2, S_PARTNER_DISCARD + 3):
        if mask[src * 4 + b]:
            return src * 4 + b
    v = need(s, p, b)
    if v >= 1 and v <= 12 and mask[v * 4 + b]:
        return v * 4 + b
    return pick_legal(s, mask)


@njit(cache=True)
def _can_source(s, vw, x):
    """Could the seat continue with value ``x`` from its own cards / open tops?"""
    seat, partner = vw.seat, vw.partner
    if s.hand[seat, x] > 0:
        return True
    for d in range(NUM_DISCARDS):
        if disc_top(s, seat, d) == x:
            return True
        if partner >= 0 and disc_top(s, partner, d) == x:
            return True
    return False


@njit(cache=True)
def _stock_direct(s, vw, source, top):
    """Play a stock top (source 0 own, 18 partner's) if a pile takes it."""
    p, mask = vw.p, vw.mask
    best = -1
    best_sc = -(1 << 30)
    for b in range(NUM_PILES):
        a = source * 4 + b
        if mask[a]:
            if top != 0:
                return a
            nv = next_need(p, b, need(s, p, b))
            sc = -10 * _threat(s, vw, nv) + s.heights[b]
            if _can_source(s, vw, nv):
                sc += 50
            if sc > best_sc:
                best_sc = sc
                best = a
    return best


@njit(cache=True)
def _useful(s, p, v, t):
    """Can a card of value ``v`` help bring some pile to the stock value ``t``?"""
    if t <= 0:
        return False
    for b in range(NUM_PILES):
        step = pile_step(p, b)
        nb = need(s, p, b)
        if (v - nb) * step >= 0 and (t - v) * step > 0:
            return True
    return False


@njit(cache=True)
def _empty_hand(s, vw, w):
    """First play of a wild-free sequence that empties the hand (hand cards and discard tops); -1 if
    there is none. ``w`` is scratch space."""
    p, K, mask, seat, partner = vw
    if s.hand[seat, 0] > 0 or s.hand_len[seat] == 0:
        return -1
    hand = w[0:13]
    for c in range(NUM_CODES):
        hand[c] = s.hand[seat, c]
    pos = w[13:21]
    for d in range(NUM_DISCARDS):
        pos[d] = s.disc_len[seat, d]
        pos[NUM_DISCARDS + d] = s.disc_len[partner, d] if partner >= 0 else 0
    nd = w[21:25]
    for b in range(NUM_PILES):
        nd[b] = need(s, p, b)
    rem = s.hand_len[seat]
    first = -1
    for _ in range(40):
        if rem == 0:
            break
        a = -1
        for b in range(NUM_PILES):
            v = nd[b]
            if hand[v] > 0:
                hand[v] -= 1
                rem -= 1
                a = v * 4 + b
                nd[b] = next_need(p, b, v)
                break
        if a < 0:
            for b in range(NUM_PILES):
                v = nd[b]
                for d in range(2 * NUM_DISCARDS):
                    if pos[d] > 0:
                        who = seat if d < NUM_DISCARDS else partner
                        if s.disc[who, d % NUM_DISCARDS, pos[d] - 1] == v:
                            pos[d] -= 1
                            a = _action(d, b)
                            nd[b] = next_need(p, b, v)
                            break
                if a >= 0:
                    break
        if a < 0:
            return -1
        if first < 0:
            first = a
    if rem > 0:
        return -1
    if K[K_EMPTY_VETO] != 0:
        for b in range(NUM_PILES):
            if nd[b] != need(s, p, b) and _threat(s, vw, nd[b]) > 0:
                return -1
    if first >= 0 and mask[first]:
        return first
    return -1


@njit(cache=True)
def _dead_play(s, vw, t):
    """A discard top (then a hand card) that cannot help the stock plan, played where it fits and does
    not open an opponent's stock top."""
    p, K, mask, seat, _ = vw
    best = -1
    best_sc = -(1 << 30)
    for b in range(NUM_PILES):
        v = need(s, p, b)
        if K[K_PLAY_USEFUL] == 0 and _useful(s, p, v, t):
            continue
        thr = _threat(s, vw, next_need(p, b, v))
        if thr > 0 and K[K_DEAD_VETO] != 0:
            continue
        for d in range(NUM_DISCARDS):
            a = (S_DISCARD + d) * 4 + b
            if disc_top(s, seat, d) == v and mask[a]:
                sc = 20 + s.disc_len[seat, d] - 30 * thr
                if sc > best_sc:
                    best_sc = sc
                    best = a
        a = v * 4 + b
        if s.hand[seat, v] > 0 and mask[a]:
            sc = 10 - 30 * thr
            if sc > best_sc:
                best_sc = sc
                best = a
    return best


@njit(cache=True)
def _starved_play(s, vw):
    """The draw pile and the completed stack are empty: move the table (numbered cards, then wilds on
    the highest pile) so that piles complete and recycle."""
    p, mask, seat = vw.p, vw.mask, vw.seat
    for b in range(NUM_PILES):
        v = need(s, p, b)
        for d in range(NUM_DISCARDS):
            a = (S_DISCARD + d) * 4 + b
            if disc_top(s, seat, d) == v and mask[a]:
                return a
        a = v * 4 + b
        if s.hand[seat, v] > 0 and mask[a]:
            return a
    best = -1
    best_h = -1
    for b in range(NUM_PILES):
        for src in (S_DISCARD, S_DISCARD + 1, S_DISCARD + 2, S_DISCARD + 3, S_HAND_WILD):
            a = src * 4 + b
            wild = src == S_HAND_WILD or disc_top(s, seat, src - S_DISCARD) == 0
            if mask[a] and s.heights[b] > best_h and wild:
                best_h = s.heights[b]
                best = a
    return best


@njit(cache=True)
def _discard(s, vw, t):
    """The best discard: the card given up and the pile it goes on, scored (``K[K_KEEP]`` and the
    discard weights)."""
    p, K, mask, seat = vw.p, vw.K, vw.mask, vw.seat
    best = -1
    best_sc = -(1 << 30)
    only_wilds = s.hand_len[seat] == s.hand[seat, 0]
    empties = 0
    for d in range(NUM_DISCARDS):
        if disc_top(s, seat, d) < 0:
            empties += 1
    for c in range(NUM_CODES):
        if s.hand[seat, c] == 0:
            continue
        if c == 0 and not only_wilds:
            continue
        # what giving up this card costs
        keep = 0
        if c > 0:
            if c == t:
                keep += 0
            elif _useful(s, p, c, t):
                keep += K[K_KEEP]
            if s.hand[seat, c] > 1:
                keep -= K[K_DUP]
        k = c - 1 if c > 0 else 12
        for d in range(NUM_DISCARDS):
            a = A_DISCARD + k * 4 + d
            if not mask[a]:
                continue
            top = int(disc_top(s, seat, d))  # int: the score below overflows int8 in plain numpy
            if c == 0:
                sc = 0 if top < 0 else -1
            elif top < 0:
                sc = K[K_FREE] + 3 * c if empties > 1 else 3 * c - 10
            elif top == 0:
                sc = -200
            elif top == c:
                sc = K[K_SAME]
            elif top == c + 1:
                sc = K[K_RUN]
            elif top > c:
                sc = 60 - 4 * (top - c)
            else:
                sc = -10 - 4 * (c - top)
            sc = sc * 4 + c - 4 * keep
            if sc > best_sc:
                best_sc = sc
                best = a
    return best


@njit(cache=True)
def bot_expert(s, p, mask):
    return expert_action(s, p, mask, KNOBS)


@njit(cache=True)
def expert_action(s, p, mask, K):
    """The expert's choice with the weights ``K`` (``KNOBS`` by default; exposed for tuning)."""
    w = np.empty(64, np.int64)  # scratch space of the plans
    seat = s.current
    partner = partner_of(s, p, seat)
    vw = View(p, K, mask, seat, partner)
    # 1. a pending wild must be covered
    if s.cover >= 0:
        return _cover(s, p, mask)
    # 2. stock tops that fit
    st = stock_top(s, seat)
    if st >= 0:
        a = _stock_direct(s, vw, S_STOCK, st)
        if a >= 0:
            return a
    pst = stock_top(s, partner) if partner >= 0 else -1
    if pst >= 0:
        a = _stock_direct(s, vw, S_PARTNER_STOCK, pst)
        if a >= 0:
            return a
    # 3. stock paths
    if st > 0:
        a = _best_plan(s, vw, w, st, False)
        if a >= 0:
            return a
    if pst > 0:
        a = _best_plan(s, vw, w, pst, True)
        if a >= 0:
            return a
    t = st if st > 0 else pst
    starved = s.draw_len == 0 and s.done_len == 0
    if starved:
        a = _starved_play(s, vw)
        if a >= 0:
            return a
    # 5. empty the hand for a refill
    a = _empty_hand(s, vw, w)
    if a >= 0:
        return a
    # 6. dead cards out
    a = _dead_play(s, vw, t)
    if a >= 0:
        return a
    # 7. discard
    a = _discard(s, vw, t)
    if a >= 0:
        return a
    if mask[A_PASS]:
        return A_PASS
    return pick_legal(s, mask)


BOTS = {"expert": bot_expert}
