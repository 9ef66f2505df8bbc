"""Skip-Bo Junior: rule options, parameter vector and state record.

Card codes: ``1..10`` for the numbers, ``0`` for the wild card. 96 cards: 8 of each number, 16 wilds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...kit import Rules, check_bool, check_choice, check_int, option, state_dtype

NUM_CODES = 11  # card codes 0 (wild) .. 10
WILD = 0
TOP = 10  # a build pile is complete at 10 cards
NUM_PILES = 4
NUM_STACKS = 3  # hand stacks per player
#: the largest max_turns: a turn draws at most NUM_STACKS cards (each at most one recycle), and the
#: record counts recycles in 16 bits
MAX_TURNS = 32_767 // NUM_STACKS - 1
MIN_PLAYERS, MAX_PLAYERS = 2, 4
DECK_SIZE = 96
MAX_STOCK = DECK_SIZE // MIN_PLAYERS  # 48
NUM_ACTIONS = 17
END_TURN = 16

#: every card of one deck (any order)
FULL_DECK = np.array([WILD] * 16 + [v for v in range(1, 11) for _ in range(8)], dtype=np.int8)
DECK = FULL_DECK
#: copies of each code in the deck
CODE_COUNTS = np.bincount(FULL_DECK, minlength=NUM_CODES).astype(np.int16)

# parameter vector indices (Rules.params())
P_NUM_PLAYERS = 0
P_STOCK = 1
P_MUST_PLAY = 2
P_RECYCLE_BUILDS = 3
P_STALL_ROUNDS = 4
P_MAX_TURNS = 5
P_FIRST = 6  # first seat, -1 = random
P_REWARD = 7  # 0 = "win" (the only reward of this game)
NUM_PARAMS = 8

FIELDS = [
    ("stock", np.int8, (MAX_PLAYERS, MAX_STOCK)),  # bottom first; top = stock[i, stock_len[i]-1]
    ("stock_len", np.int16, (MAX_PLAYERS,)),
    ("stacks", np.int8, (MAX_PLAYERS, NUM_STACKS, DECK_SIZE)),  # hand stacks, bottom first
    ("stack_len", np.int16, (MAX_PLAYERS, NUM_STACKS)),
    ("stack_under", np.int16, (MAX_PLAYERS, NUM_STACKS, NUM_CODES)),  # counts of codes under each top
    ("draw", np.int8, (DECK_SIZE,)),  # draw pile, top = draw[draw_len-1]
    ("draw_len", np.int16),
    ("done", np.int8, (DECK_SIZE,)),  # completed build piles (face up, out of play until recycled)
    ("done_len", np.int16),
    ("builds", np.int8, (NUM_PILES, TOP)),  # build piles, bottom first (wilds keep code 0)
    ("heights", np.int8, (NUM_PILES,)),  # value reached by each pile (next value = height + 1)
    ("bcounts", np.int8, (NUM_PILES,)),  # cards physically on each pile
    ("hidden", np.int16, (NUM_CODES,)),  # codes nobody can see: draw pile + stocks under their tops
    ("played", np.int8),  # a card was played to a build pile during the current turn
    ("idle", np.int16),  # consecutive turns with no play while nothing could be drawn
    ("winner", np.int8),  # winning seat, -1 if none
    ("recycles", np.int16),  # times a new draw pile was made
]

STATE_DTYPE = state_dtype(MAX_PLAYERS, FIELDS)


@dataclass(frozen=True)
class JuniorRules(Rules):
    """Every rule option of Skip-Bo Junior (defaults = the Mattel rules, see docs/skipbo_junior.md).

    Each option's help is given beside it (`option`).
    """

    game_name = "skipbo_junior"

    num_players: int = option(2, "2..4.")
    stock_size: int = option(10, "cards in each stock, 1 .. 96 // num_players (default 10).")
    must_play: bool = option(True,
        "True (default): a player keeps playing while a play exists, the turn ends by itself when none "
        'is left. False: action 16 "end turn" is legal at every decision.')
    recycle_build_piles: bool = option(False,
        "when the draw pile and the completed stack are both empty, shuffle the cards under each build "
        "pile's top card into a new draw pile (default False: fewer cards are dealt, as RULES.md says; "
        "the Skip-Bo electronic-edition rule, kept as an option).")
    stall_rounds: int = option(2,
        "the game is a draw after this many full rounds of turns (``stall_rounds * num_players`` turns "
        "in a row) with no card played while nothing can be drawn or recycled (>= 1, default 2, as in "
        "Skip-Bo).")
    first_player: int | str = option(0, 'seat that starts (default 0, "the youngest") or ``"random"``.')
    max_turns: int = option(1000, "turn cap; reaching it ends the episode as truncated (default 1000; at most "
                                  "10,922).")
    reward: str = option("win", '``"win"`` only (+1 winner, -1 others, 0 on a draw or truncation).')

    def _validate(self):
        check_int("num_players", self.num_players, MIN_PLAYERS, MAX_PLAYERS)
        check_int("stock_size", self.stock_size, 1, DECK_SIZE // self.num_players)
        check_bool("must_play", self.must_play)
        check_bool("recycle_build_piles", self.recycle_build_piles)
        check_int("stall_rounds", self.stall_rounds, 1, 1_000_000)
        if isinstance(self.first_player, str):
            check_choice("first_player", self.first_player, ["random"])
        else:
            check_int("first_player", self.first_player, 0, self.num_players - 1)
        # the record counts recycles in 16 bits (recycles, int16); a turn draws at most NUM_STACKS cards,
        # each at most one recycle: NUM_STACKS * MAX_TURNS <= 32,767 keeps it from wrapping
        check_int("max_turns", self.max_turns, 1, MAX_TURNS)
        if self.reward == "score":
            raise ValueError(
                "option reward='score' is not available for skipbo_junior: Skip-Bo Junior has no scoring "
                "(the first player to empty their stock wins); allowed values: ['win']"
            )
        check_choice("reward", self.reward, ["win"])

    def params(self) -> np.ndarray:
        p = np.zeros(NUM_PARAMS, np.int32)
        p[P_NUM_PLAYERS] = self.num_players
        p[P_STOCK] = self.stock_size
        p[P_MUST_PLAY] = int(self.must_play)
        p[P_RECYCLE_BUILDS] = int(self.recycle_build_piles)
        p[P_STALL_ROUNDS] = self.stall_rounds
        p[P_MAX_TURNS] = self.max_turns
        p[P_FIRST] = -1 if self.first_player == "random" else int(self.first_player)
        p[P_REWARD] = 0
        return p


RULES = JuniorRules
