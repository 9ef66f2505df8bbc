"""Blackjack rules kernels (numba): reset, legal, apply, state_vector."""

from __future__ import annotations

import numpy as np
from numba import njit

from cardgym.core.game import TERMINATED, TRUNCATED
from cardgym.games._shared.cards import deck_order, load_pile
from cardgym.games._shared.header import clear_mask, clear_reward, start_record

from .observe import obs_size, observe_vector
from .rules import DECK, DECK_SIZE, HIT, card_value, hand_total, MAX_PLAYERS, P_MAX_TURNS, P_NUM_PLAYERS, P_SOFT17, STAND


@njit(cache=True)
def _draw(s):
    s.draw_len -= 1
    return s.draw[s.draw_len]


@njit(cache=True)
def _next_seat(s, start):
    """The first seat from ``start`` on that still plays, or -1."""
    for j in range(start, s.num_players):
        if s.done[j] == 0:
            return j
    return -1


@njit(cache=True)
def _settle(s, p):
    """The dealer draws to 17 (and on a soft 17 if the rules say so), then every seat is paid."""
    n = s.num_players
    live = False
    for j in range(n):
        if hand_total(s.hand[j], s.hand_len[j])[0] <= 21:
            live = True
    while live and s.draw_len > 0:
        total, soft = hand_total(s.dealer, s.dealer_len)
        if total > 17 or (total == 17 and not (soft and p[P_SOFT17] == 1)):
            break
        s.dealer[s.dealer_len] = _draw(s)
        s.dealer_len += 1
    dealer = hand_total(s.dealer, s.dealer_len)[0]
    for j in range(n):
        mine = hand_total(s.hand[j], s.hand_len[j])[0]
        if mine > 21:
            s.outcome[j] = -1
        elif dealer > 21 or mine > dealer:
            s.outcome[j] = 1
        elif mine == dealer:
            s.outcome[j] = 0
        else:
            s.outcome[j] = -1
        s.reward[j] = float(s.outcome[j])
    s.status = TERMINATED


@njit(cache=True)
def reset(s, p, seed, deck, deck_len):
    n = p[P_NUM_PLAYERS]
    start_record(s, seed, n)
    order = np.empty(DECK_SIZE, np.int8)
    deck_order(s, DECK, deck, deck_len, order)
    for j in range(MAX_PLAYERS):
        s.hand_len[j] = 0
        s.done[j] = 0
        s.outcome[j] = 0
        for k in range(s.hand.shape[1]):
            s.hand[j, k] = 0
    for k in range(s.dealer.shape[0]):
        s.dealer[k] = 0
    # two rounds around the table, the dealer last: front of the deck first
    at = 0
    for r in range(2):
        for j in range(n):
            s.hand[j, s.hand_len[j]] = order[at]
            s.hand_len[j] += 1
            at += 1
        s.dealer[r] = order[at]
        at += 1
    s.dealer_len = 2
    s.draw_len = load_pile(s.draw, order, at, DECK_SIZE - at)
    for k in range(s.draw_len, DECK_SIZE):
        s.draw[k] = 0
    s.current = 0  # every seat plays (a natural, a two-card 21, can only stand)


@njit(cache=True)
def legal(s, p, mask):
    if not clear_mask(s, mask):
        return
    mask[STAND] = 1
    if s.draw_len > 0 and hand_total(s.hand[s.current], s.hand_len[s.current])[0] < 21:
        mask[HIT] = 1


@njit(cache=True)
def apply(s, p, action):
    clear_reward(s)
    j = s.current
    s.turn += 1
    if action == HIT:
        s.hand[j, s.hand_len[j]] = _draw(s)
        s.hand_len[j] += 1
        if hand_total(s.hand[j], s.hand_len[j])[0] >= 21:
            s.done[j] = 1
    else:
        s.done[j] = 1
    nxt = _next_seat(s, j)
    if nxt < 0:
        _settle(s, p)
        return
    s.current = nxt
    if s.turn >= p[P_MAX_TURNS]:
        s.status = TRUNCATED


@njit(cache=True)
def state_vector(s, p, out):
    """Full information: seat 0's observation, the hole card's value (one-hot 1..10) and the count of
    each value left in the shoe."""
    n = int(s.num_players)
    m = obs_size(n)
    observe_vector(s, p, 0, out[:m])
    for i in range(m, out.shape[0]):
        out[i] = 0.0
    out[m + card_value(s.dealer[1]) - 1] = 1.0
    for k in range(s.draw_len):
        out[m + 10 + card_value(s.draw[k]) - 1] += 1.0
