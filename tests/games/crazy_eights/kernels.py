"""Crazy Eights rules kernels (numba): reset, legal, apply, state_vector."""

from __future__ import annotations

from numba import njit

from cardgym.kit import clear_mask, clear_reward, deck_order, shuffle, start_record

from .observe import obs_size, observe_vector
from .rules import (
    DECK,
    DECK_SIZE,
    DRAW,
    EIGHT,
    MAX_PLAYERS,
    NAME_SUIT,
    NUM_SUITS,
    P_HAND,
    P_MAX_TURNS,
    P_NUM_PLAYERS,
    PH_PLAY,
    PH_SUIT,
)


@njit(cache=True)
def suit_of(c):
    return c >> 3


@njit(cache=True)
def rank_of(c):
    return c & 7


@njit(cache=True)
def playable(s, c):
    """Whether card ``c`` may go on the discard pile now: an eight, the suit to follow or the top's rank."""
    top = s.discard[s.discard_len - 1]
    return rank_of(c) == EIGHT or suit_of(c) == s.suit or rank_of(c) == rank_of(top)


@njit(cache=True)
def can_draw(s):
    """A card can be drawn: the draw pile, or the discard pile under its top (shuffled into a new one)."""
    return s.draw_len > 0 or s.discard_len > 1


@njit(cache=True)
def has_play(s, seat):
    for c in range(DECK_SIZE):
        if s.hand[seat, c] and playable(s, c):
            return True
    return False


@njit(cache=True)
def _draw_card(s):
    """The draw pile's top card; an empty draw pile is first refilled with the discard pile under its
    top card, shuffled with the game generator. The caller checks `can_draw`."""
    if s.draw_len == 0:
        m = s.discard_len - 1
        for k in range(m):
            s.draw[k] = s.discard[k]
        shuffle(s, s.draw, m)
        s.discard[0] = s.discard[m]
        s.discard_len = 1
        s.draw_len = m
    s.draw_len -= 1
    return s.draw[s.draw_len]


@njit(cache=True)
def reset(s, p, seed, deck, deck_len):
    n = p[P_NUM_PLAYERS]
    h = p[P_HAND]
    start_record(s, seed, n)
    s.current = 0
    s.phase = PH_PLAY
    s.passes = 0
    s.winner = -1
    for i in range(MAX_PLAYERS):
        s.hand_len[i] = 0
        for c in range(DECK_SIZE):
            s.hand[i, c] = 0
    # the deal order in the draw pile's array, front = top of the deck
    deck_order(s, DECK, deck, deck_len, s.draw)
    for r in range(h):  # one card at a time, around the table
        for i in range(n):
            s.hand[i, s.draw[r * n + i]] = 1
    for i in range(n):
        s.hand_len[i] = h
    starter = s.draw[n * h]
    s.discard[0] = starter
    s.discard_len = 1
    s.suit = suit_of(starter)
    # the rest is the draw pile, the next card of the deck on top: reversing the whole array puts
    # deck[DECK_SIZE - 1 - j] at j, so draw[:left] holds deck[n*h+1:] with deck[n*h+1] on top
    for j in range(DECK_SIZE // 2):
        t = s.draw[j]
        s.draw[j] = s.draw[DECK_SIZE - 1 - j]
        s.draw[DECK_SIZE - 1 - j] = t
    left = DECK_SIZE - n * h - 1
    s.draw_len = left
    for j in range(left, DECK_SIZE):
        s.draw[j] = 0


@njit(cache=True)
def legal(s, p, mask):
    if not clear_mask(s, mask):
        return
    seat = s.current
    if s.phase == PH_SUIT:
        for k in range(NUM_SUITS):
            mask[NAME_SUIT + k] = 1
        return
    any_play = False
    for c in range(DECK_SIZE):
        if s.hand[seat, c] and playable(s, c):
            mask[c] = 1
            any_play = True
    if can_draw(s) or not any_play:
        mask[DRAW] = 1  # draw; with nothing to draw (and nothing to play) this is a pass


@njit(cache=True)
def _end_turn(s, p):
    n = s.num_players
    s.turn += 1
    if s.passes >= n:  # every seat passed in a row: nobody can move again, a draw
        s.status = 1
        return
    if s.turn >= p[P_MAX_TURNS]:
        s.status = 2
        return
    s.current = (s.current + 1) % n
    s.phase = PH_PLAY


@njit(cache=True)
def apply(s, p, action):
    clear_reward(s)
    seat = s.current
    if action >= NAME_SUIT:
        s.suit = action - NAME_SUIT
        _end_turn(s, p)
        return
    if action == DRAW:
        if can_draw(s):
            c = _draw_card(s)
            s.hand[seat, c] = 1
            s.hand_len[seat] += 1
            s.passes = 0
        else:
            s.passes += 1
        _end_turn(s, p)
        return
    s.hand[seat, action] = 0
    s.hand_len[seat] -= 1
    s.discard[s.discard_len] = action
    s.discard_len += 1
    s.passes = 0
    s.suit = suit_of(action)
    if s.hand_len[seat] == 0:
        s.turn += 1
        s.status = 1
        s.winner = seat
        for i in range(s.num_players):
            s.reward[i] = 1.0 if i == seat else -1.0
        return
    if rank_of(action) == EIGHT:
        s.phase = PH_SUIT  # the same seat names the suit to follow
        return
    _end_turn(s, p)


@njit(cache=True)
def state_vector(s, p, out):
    """Full information: seat 0's observation, then every hand (one-hot by code, seat order) and the
    draw pile's top card."""
    n = int(s.num_players)
    m = obs_size(n)
    observe_vector(s, p, 0, out[:m])
    for i in range(m, out.shape[0]):
        out[i] = 0.0
    for j in range(n):
        for c in range(DECK_SIZE):
            if s.hand[j, c]:
                out[m + DECK_SIZE * j + c] = 1.0
    if s.draw_len > 0:
        out[m + DECK_SIZE * n + int(s.draw[s.draw_len - 1])] = 1.0
