"""Crazy Eights: rule options, parameter vector, state record and the deck.

Card codes ``0..31``: ``suit * 8 + rank`` with suits clubs, diamonds, hearts, spades (0..3) and ranks
7, 8, 9, 10, J, Q, K, A (0..7). The eights (rank 1) are wild.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cardgym.kit import Rules, check_choice, check_int, option, state_dtype

NUM_SUITS, NUM_RANKS = 4, 8
DECK_SIZE = NUM_SUITS * NUM_RANKS  # 32: the piquet deck
EIGHT = 1  # rank index of the eights
RANK_NAMES = ("7", "8", "9", "10", "J", "Q", "K", "A")
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
SUIT_LETTERS = ("C", "D", "H", "S")
MIN_PLAYERS, MAX_PLAYERS = 2, 4

#: actions: 0..31 play that card; 32 draw a card (or pass when none can be drawn); 33..36 name a suit
DRAW = DECK_SIZE
NAME_SUIT = DECK_SIZE + 1
NUM_ACTIONS = NAME_SUIT + NUM_SUITS

#: phases of the seat to act
PH_PLAY, PH_SUIT = 0, 1

#: every card of one deck (any order)
DECK = np.arange(DECK_SIZE, dtype=np.int8)

# parameter vector indices (Rules.params())
P_NUM_PLAYERS = 0
P_HAND = 1
P_MAX_TURNS = 2
NUM_PARAMS = 3

FIELDS = [
    ("hand", np.int8, (MAX_PLAYERS, DECK_SIZE)),  # 1 where the seat holds that card
    ("hand_len", np.int8, (MAX_PLAYERS,)),
    ("draw", np.int8, (DECK_SIZE,)),  # draw pile, top = draw[draw_len - 1]
    ("draw_len", np.int16),
    ("discard", np.int8, (DECK_SIZE,)),  # discard pile, top = discard[discard_len - 1]
    ("discard_len", np.int16),
    ("suit", np.int8),  # the suit to follow (the top card's, or the one named after an eight)
    ("phase", np.int8),  # PH_PLAY or PH_SUIT (the seat that just played an eight names a suit)
    ("passes", np.int8),  # consecutive passes (nothing to play, nothing to draw)
    ("winner", np.int8),  # the seat that emptied its hand, -1 if none
]

STATE_DTYPE = state_dtype(MAX_PLAYERS, FIELDS)


@dataclass(frozen=True)
class CrazyEightsRules(Rules):
    """Every rule option of Crazy Eights (see the game's page).

    Each option's help is given beside it (`option`).
    """

    game_name = "crazy_eights"

    num_players: int = option(2, "2..4.")
    hand_size: int = option(5, "cards dealt to each player, 1 .. 31 // num_players (default 5).")
    max_turns: int = option(300, "turn cap; reaching it ends the episode as truncated (default 300).")
    reward: str = option("win",
        '``"win"`` only (+1 to the player who empties their hand, -1 to the others, 0 to all on a '
        "blocked game or a truncation).")

    def _validate(self):
        check_int("num_players", self.num_players, MIN_PLAYERS, MAX_PLAYERS)
        check_int("hand_size", self.hand_size, 1, (DECK_SIZE - 1) // self.num_players)
        check_int("max_turns", self.max_turns, 1)
        check_choice("reward", self.reward, ["win"])

    def params(self) -> np.ndarray:
        p = np.zeros(NUM_PARAMS, np.int32)
        p[P_NUM_PLAYERS] = self.num_players
        p[P_HAND] = self.hand_size
        p[P_MAX_TURNS] = self.max_turns
        return p


RULES = CrazyEightsRules
