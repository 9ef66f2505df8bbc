"""Skip-Bo bots (compiled): "random" and "greedy".

``greedy`` decides each action from what the acting seat sees (its hand, every stock top, the open
discard piles, the build piles), in this order:

1. wild_must_be_covered: cover the pending wild (stock first, then discard tops, then the hand).
2. Play its own stock top if a build pile takes it (a wild stock top goes on the highest pile), then, in
   teams, the partner's stock top.
3. *Stock chain*: for every build pile, plan the run of plays that brings it to the value of its stock
   top, taking each value from a discard-pile top (own, then the partner's), the partner's stock top, the
   hand, and only then a wild (discard-top wilds first). The cheapest plan (fewest wilds, then fewest
   cards) is started; the bot re-plans after every play. Teams: then the same for the partner's stock.
4. *Hand emptying*: without wilds in hand, if every hand card can be played out (with the help of its own
   discard tops) it does so, to draw 5 fresh cards -- unless the resulting piles would newly let an
   opponent play their stock top.
5. Wilds are never played except in 2-3 (no wasted wilds).
6. Discard: the card/pile pair with the best "tidiness" score: onto the same value, onto the value just
   above (descending runs), onto a higher card, an empty pile for high cards; never onto a wild, and a
   wild only when the hand holds nothing else. Higher cards are discarded first.
7. With an empty hand and nothing to draw: pass.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...kit import pick_legal
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


@njit(cache=True)
def disc_action(d, b):
    """Action of playing discard pile ``d`` (0..3 own, 4..7 partner's) onto build pile ``b``."""
    if d < NUM_DISCARDS:
        return (S_DISCARD + d) * 4 + b
    return (S_PARTNER_DISCARD + d - NUM_DISCARDS) * 4 + b


@njit(cache=True)
def _chain(s, p, seat, partner, b, target):
    """Plan the plays onto build pile ``b`` that make it need ``target``.

    Returns (first action, wilds used, cards played); first action -1 if impossible, -2 if the pile
    already needs ``target``."""
    v = need(s, p, b)
    step = pile_step(p, b)
    k = (target - v) * step
    if k < 0:
        return -1, 0, 0
    if k == 0:
        return -2, 0, 0
    for d in range(NUM_DISCARDS):
        s._bot_pos[d] = s.disc_len[seat, d]
        s._bot_pos[NUM_DISCARDS + d] = s.disc_len[partner, d] if partner >= 0 else 0
    pst = stock_top(s, partner) if partner >= 0 else -1
    hand_wilds = s.hand[seat, 0]
    wilds = 0
    first = -1
    for j in range(k):
        val = v + j * step
        a = -1
        for d in range(2 * NUM_DISCARDS):
            pos = s._bot_pos[d]
            if pos > 0:
                who = seat if d < NUM_DISCARDS else partner
                if s.disc[who, d % NUM_DISCARDS, pos - 1] == val:
                    s._bot_pos[d] = pos - 1
                    a = disc_action(d, b)
                    break
        if a < 0 and pst == val:
            pst = -1
            a = S_PARTNER_STOCK * 4 + b
        if a < 0 and s.hand[seat, val] > 0:
            a = val * 4 + b
        if a < 0:
            for d in range(2 * NUM_DISCARDS):
                pos = s._bot_pos[d]
                if pos > 0:
                    who = seat if d < NUM_DISCARDS else partner
                    if s.disc[who, d % NUM_DISCARDS, pos - 1] == 0:
                        s._bot_pos[d] = pos - 1
                        a = disc_action(d, b)
                        wilds += 1
                        break
        if a < 0 and hand_wilds > 0:
            hand_wilds -= 1
            wilds += 1
            a = S_HAND_WILD * 4 + b
        if a < 0:
            return -1, 0, 0
        if first < 0:
            first = a
    return first, wilds, k


@njit(cache=True)
def _best_chain(s, p, mask, seat, partner, target):
    best = -1
    best_cost = 1 << 30
    for b in range(NUM_PILES):
        a, wilds, cards = _chain(s, p, seat, partner, b, target)
        if a >= 0 and mask[a]:
            cost = np.int64(wilds) * 64 + cards  # int8 counts would overflow as plain Python (no-JIT)
            if cost < best_cost:
                best_cost = cost
                best = a
    return best


@njit(cache=True)
def _stock_direct(s, p, mask, source, top):
    """Play a stock top (source 0 own, 18 partner's) directly if a pile takes it."""
    best = -1
    best_h = -1
    for b in range(NUM_PILES):
        a = source * 4 + b
        if mask[a]:
            if top != 0:
                return a
            if s.heights[b] > best_h:
                best_h = s.heights[b]
                best = a
    return best


@njit(cache=True)
def _opponent_opened(s, p, seat, partner):
    """Does some build pile of the planned ``_bot_need`` newly take an opponent's numbered stock top?"""
    n = s.num_players
    for i in range(n):
        if i == seat or i == partner:
            continue
        t = stock_top(s, i)
        if t <= 0:
            continue
        before = False
        after = False
        for b in range(NUM_PILES):
            if need(s, p, b) == t:
                before = True
            if s._bot_need[b] == t:
                after = True
        if after and not before:
            return True
    return False


@njit(cache=True)
def _empty_hand(s, p, mask, seat, partner):
    """First play of a plan that empties the hand without wilds; -1 if none / not advisable."""
    if s.hand[seat, 0] > 0 or s.hand_len[seat] == 0:
        return -1
    for c in range(NUM_CODES):
        s._bot_hand[c] = s.hand[seat, c]
    for d in range(NUM_DISCARDS):
        s._bot_pos[d] = s.disc_len[seat, d]
    for b in range(NUM_PILES):
        s._bot_need[b] = need(s, p, b)
    rem = s.hand_len[seat]
    first = -1
    while rem > 0:
        a = -1
        for b in range(NUM_PILES):
            v = s._bot_need[b]
            if s._bot_hand[v] > 0:
                s._bot_hand[v] -= 1
                rem -= 1
                a = v * 4 + b
            else:
                for d in range(NUM_DISCARDS):
                    pos = s._bot_pos[d]
                    if pos > 0 and s.disc[seat, d, pos - 1] == v:
                        s._bot_pos[d] = pos - 1
                        a = (S_DISCARD + d) * 4 + b
                        break
            if a >= 0:
                s._bot_need[b] = next_need(p, b, v)
                break
        if a < 0:
            return -1
        if first < 0:
            first = a
    if _opponent_opened(s, p, seat, partner):
        return -1
    if first >= 0 and mask[first]:
        return first
    return -1


@njit(cache=True)
def _opens(s, p, seat, partner, v):
    """Would a pile needing ``v`` let an opponent play their numbered stock top?"""
    for i in range(s.num_players):
        if i != seat and i != partner and stock_top(s, i) == v:
            return True
    return False


@njit(cache=True)
def _free_play(s, p, mask, seat, partner):
    """A numbered discard top (then hand card) that fits a pile without opening an opponent's stock.
    When the draw pile and the completed stack are empty (the game clogs), any numbered play and then
    wilds on the highest pile are made, to complete piles and refill the draw pile."""
    starved = s.draw_len == 0 and s.done_len == 0
    for b in range(NUM_PILES):
        v = need(s, p, b)
        nv = next_need(p, b, v)
        if not starved and _opens(s, p, seat, partner, nv):
            continue
        for d in range(NUM_DISCARDS):
            a = (S_DISCARD + d) * 4 + b
            if disc_top(s, seat, d) == v and mask[a]:
                return a
    for b in range(NUM_PILES):
        v = need(s, p, b)
        nv = next_need(p, b, v)
        if not starved and _opens(s, p, seat, partner, nv):
            continue
        a = v * 4 + b
        if s.hand[seat, v] > 0 and mask[a]:
            return a
    if starved:
        best = -1
        best_h = -1
        for b in range(NUM_PILES):
            for src in (S_DISCARD, S_DISCARD + 1, S_DISCARD + 2, S_DISCARD + 3, S_HAND_WILD):
                a = src * 4 + b
                if mask[a] and s.heights[b] > best_h:
                    if src == S_HAND_WILD or disc_top(s, seat, src - S_DISCARD) == 0:
                        best_h = s.heights[b]
                        best = a
        return best
    return -1


@njit(cache=True)
def _discard(s, p, mask, seat):
    best = -1
    best_sc = -(1 << 30)
    only_wilds = s.hand_len[seat] == s.hand[seat, 0]
    for c in range(NUM_CODES):
        if s.hand[seat, c] == 0:
            continue
        if c == 0 and not only_wilds:
            continue
        k = c - 1 if c > 0 else 12
        for d in range(NUM_DISCARDS):
            a = A_DISCARD + k * 4 + d
            if not mask[a]:
                continue
            t = int(disc_top(s, seat, d))  # int: the score below overflows int8 in plain numpy
            if c == 0:
                sc = 0 if t < 0 else -1
            elif t < 0:
                sc = 40
            elif t == 0:
                sc = -100
            elif t == c:
                sc = 100
            elif t == c + 1:
                sc = 90
            elif t > c:
                sc = 60 - (t - c)
            else:
                sc = 10 - (c - t)
            sc = sc * 4 + c
            if sc > best_sc:
                best_sc = sc
                best = a
    return best


@njit(cache=True)
def bot_greedy(s, p, mask):
    seat = s.current
    partner = partner_of(s, p, seat)
    # 1. a pending wild must be covered
    if s.cover >= 0:
        b = s.cover
        for src in (S_STOCK, S_PARTNER_STOCK, S_DISCARD, S_DISCARD + 1, S_DISCARD + 2, S_DISCARD + 3,
                    S_PARTNER_DISCARD, S_PARTNER_DISCARD + 1, S_PARTNER_DISCARD + 2, S_PARTNER_DISCARD + 3):
            if mask[src * 4 + b]:
                return src * 4 + b
        return pick_legal(s, mask)
    # 2. stock tops
    st = stock_top(s, seat)
    if st >= 0:
        a = _stock_direct(s, p, mask, S_STOCK, st)
        if a >= 0:
            return a
    pst = stock_top(s, partner) if partner >= 0 else -1
    if pst >= 0:
        a = _stock_direct(s, p, mask, S_PARTNER_STOCK, pst)
        if a >= 0:
            return a
    # 3. chains towards the stock tops
    if st > 0:
        a = _best_chain(s, p, mask, seat, partner, st)
        if a >= 0:
            return a
    if pst > 0:
        a = _best_chain(s, p, mask, seat, partner, pst)
        if a >= 0:
            return a
    # 4. empty the hand for a refill
    a = _empty_hand(s, p, mask, seat, partner)
    if a >= 0:
        return a
    # 5. free plays of numbered cards that do not open an opponent's stock
    a = _free_play(s, p, mask, seat, partner)
    if a >= 0:
        return a
    # 6. discard
    a = _discard(s, p, mask, seat)
    if a >= 0:
        return a
    if mask[A_PASS]:
        return A_PASS
    return pick_legal(s, mask)


BOTS = {"greedy": bot_greedy}  # after the core's "random" (bot 0)
