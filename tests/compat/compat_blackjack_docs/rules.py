"""Blackjack: rule options, parameter vector, state record and the deck.

Card codes ``0..51``: ``suit * 13 + rank``, ranks A, 2..10, J, Q, K (0..12), suits clubs, diamonds,
hearts, spades. An ace counts 1, or 11 while that keeps the hand at 21 or less (a *soft* hand); 2..10
their number; J, Q, K ten.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from cardgym.core.game import state_dtype
from cardgym.core.rules import Rules, check_bool, check_choice, check_int

DECK_SIZE = 52
RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUIT_LETTERS = ("C", "D", "H", "S")
MIN_PLAYERS, MAX_PLAYERS = 1, 4
#: the most cards one hand can hold: A A A A 2 2 2 2 3 3 3 makes 21 with eleven
HAND_MAX = 12

#: actions
STAND, HIT = 0, 1
NUM_ACTIONS = 2

#: every card of one deck (any order)
DECK = np.arange(DECK_SIZE, dtype=np.int8)

# parameter vector indices (Rules.params())
P_NUM_PLAYERS, P_MAX_TURNS, P_SOFT17 = 0, 1, 2
NUM_PARAMS = 3

FIELDS = [
    ("hand", np.int8, (MAX_PLAYERS, HAND_MAX)),  # each seat's cards, in the order dealt
    ("hand_len", np.int8, (MAX_PLAYERS,)),
    ("dealer", np.int8, (HAND_MAX,)),  # the dealer's cards: dealer[0] face up, dealer[1] the hole card
    ("dealer_len", np.int8),
    ("draw", np.int8, (DECK_SIZE,)),  # the shoe, top = draw[draw_len - 1]
    ("draw_len", np.int16),
    ("done", np.int8, (MAX_PLAYERS,)),  # 1 once the seat stood, busted or reached 21
    ("outcome", np.int8, (MAX_PLAYERS,)),  # at the end: 1 beat the dealer, 0 push, -1 lost
]

STATE_DTYPE = state_dtype(MAX_PLAYERS, FIELDS)


@dataclass(frozen=True)
class BlackjackRules(Rules):
    """Every rule option of Blackjack (see the game's page).

    - ``num_players``: 1..4 seats, each playing against the dealer.
    - ``dealer_hits_soft_17``: the dealer draws on a soft 17 too (default False: stands on every 17).
    - ``max_turns``: turn cap; reaching it ends the episode as truncated (default 200; a game takes at
      most 48 turns).
    - ``reward``: ``"win"`` only (+1 beat the dealer, 0 push, -1 lost, for each seat).
    """

    game_name = "blackjack"

    num_players: int = 1
    dealer_hits_soft_17: bool = False
    max_turns: int = 200
    reward: str = "win"

    def _validate(self):
        check_int("num_players", self.num_players, MIN_PLAYERS, MAX_PLAYERS)
        check_bool("dealer_hits_soft_17", self.dealer_hits_soft_17)
        check_int("max_turns", self.max_turns, 1)
        check_choice("reward", self.reward, ["win"])

    def params(self) -> np.ndarray:
        p = np.zeros(NUM_PARAMS, np.int32)
        p[P_NUM_PLAYERS] = self.num_players
        p[P_MAX_TURNS] = self.max_turns
        p[P_SOFT17] = int(self.dealer_hits_soft_17)
        return p


RULES = BlackjackRules


@njit(cache=True)
def card_value(c):
    """1 for an ace, 2..10 by number, 10 for J, Q, K."""
    r = c % 13
    return 1 if r == 0 else (10 if r >= 9 else r + 1)


@njit(cache=True)
def hand_total(cards, length):
    """``(total, soft)``: the best total of ``cards[:length]`` (one ace counted 11 when that stays at 21
    or less, which makes the hand soft)."""
    total = 0
    aces = 0
    for k in range(length):
        v = card_value(cards[k])
        total += v
        aces += v == 1
    if aces > 0 and total + 10 <= 21:
        return total + 10, True
    return total, False
