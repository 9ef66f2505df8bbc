"""The Crazy Eights expert (numba), a hand-written heuristic that reads only what the seat to act sees
(its hand, the discard pile, the suit to follow, every hand's size).

- **Naming a suit** after an eight: the suit it holds most of, then the one with the fewest cards it
  cannot see (the others can follow it least); when another seat holds one card (it goes out if it can
  follow), the suit with the fewest unseen cards first.
- **Playing**: no eight while another card goes (one exception, below). Of the other legal cards, the one maximising
  ``W_FOLLOW`` x (cards left in its hand that can follow it: same suit or same rank) minus ``W_OUTS`` x
  (cards it cannot see that can follow it: the next seat's chances), ``W_DANGER`` instead of ``W_OUTS``
  when another seat holds one card; ties to the highest rank. With one card left to an opponent, an
  eight goes first when the suit it can name leaves at least ``EIGHT_MARGIN`` fewer outs. An eight is
  played when nothing else goes, before drawing; a hand of an eight and one other card plays the other
  card first (the eight then always goes out), unless defending.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .kernels import rank_of, suit_of
from .rules import DECK_SIZE, DRAW, EIGHT, NAME_SUIT, NUM_RANKS, NUM_SUITS, PH_SUIT

W_FOLLOW, W_OUTS = 1, 3
W_DANGER = 16
EIGHT_MARGIN = 2


@njit(cache=True)
def bot_expert(s, p, mask):
    """The expert's action for the seat to act (see the module)."""
    seat = s.current
    counts = [0, 0, 0, 0]
    for c in range(DECK_SIZE):
        if s.hand[seat, c] and rank_of(c) != EIGHT:
            counts[suit_of(c)] += 1
    seen = np.zeros(DECK_SIZE, np.int8)
    for i in range(s.discard_len):
        seen[s.discard[i]] = 1
    danger = False  # another seat holds one card: it goes out if it can follow
    for j in range(s.num_players):
        if j != seat and s.hand_len[j] == 1:
            danger = True
    if s.phase == PH_SUIT:
        best, key = 0, -(1 << 30)
        for k in range(NUM_SUITS):
            unseen = 0  # cards of suit k (eights aside) the seat cannot see
            for r in range(NUM_RANKS):
                d = k * NUM_RANKS + r
                if r != EIGHT and not s.hand[seat, d] and not seen[d]:
                    unseen += 1
            sc = counts[k] * 64 - unseen if not danger else counts[k] - unseen * 64
            if sc > key:
                best, key = k, sc
        return NAME_SUIT + best
    best, key, eight, best_outs = -1, -(1 << 30), -1, 0
    for c in range(DECK_SIZE):
        if not mask[c]:
            continue
        if rank_of(c) == EIGHT:
            eight = c
            continue
        follow = 0  # cards left in hand (eights aside) that can follow c
        for d in range(DECK_SIZE):
            if d != c and s.hand[seat, d] and rank_of(d) != EIGHT and (suit_of(d) == suit_of(c)
                                                                     or rank_of(d) == rank_of(c)):
                follow += 1
        outs = 0  # cards the seat cannot see that follow c (eights aside): the next seat's chances
        for d in range(DECK_SIZE):
            if (rank_of(d) != EIGHT and d != c and not s.hand[seat, d] and not seen[d]
                    and (suit_of(d) == suit_of(c) or rank_of(d) == rank_of(c))):
                outs += 1
        sc = W_FOLLOW * follow - (W_DANGER if danger else W_OUTS) * outs
        sc = sc * 16 + rank_of(c)
        if sc > key:
            best, key, best_outs = c, sc, outs
    if best >= 0 and eight >= 0 and danger:
        # an eight names the suit the others can follow least: worth it when that is clearly fewer outs
        fewest = DECK_SIZE
        for k in range(NUM_SUITS):
            unseen = 0
            for r in range(NUM_RANKS):
                d = k * NUM_RANKS + r
                if r != EIGHT and not s.hand[seat, d] and not seen[d]:
                    unseen += 1
            fewest = min(fewest, unseen)
        if fewest + EIGHT_MARGIN <= best_outs:
            return eight
    if best >= 0:
        return best
    if eight >= 0:
        return eight
    return DRAW


BOTS = {"expert": bot_expert}
