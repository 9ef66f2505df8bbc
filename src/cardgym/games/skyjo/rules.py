"""Skyjo rule options, parameter vector and state record layout.

See ``docs/skyjo.md`` for the rules as implemented and every choice made where RULES.md is silent.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...kit import REWARD_CODES, Rules, check_choice, check_int, option, state_dtype

MIN_PLAYERS = 2
MAX_PLAYERS = 8
SLOTS = 12  # 3 rows x 4 columns, position p = 4*row + col
ROWS = 3
COLS = 4
NUM_VALUES = 15  # card values -2..12, index = value + 2
MIN_VALUE = -2
MAX_VALUE = 12
DECK_SIZE = 150
NUM_ACTIONS = 26

# deck composition: five -2, ten -1, fifteen 0, ten each of 1..12
DECK_COUNTS = np.array([5, 10, 15] + [10] * 12, dtype=np.int16)
DECK = np.repeat(np.arange(MIN_VALUE, MAX_VALUE + 1, dtype=np.int8), DECK_COUNTS)
assert DECK.shape[0] == DECK_SIZE

# actions
A_REVEAL = 0  # 0..11: reveal position p (setup reveal, or discard the drawn card and reveal p)
A_REPLACE = 12  # 12..23: replace position a-12 with the held card
A_DRAW = 24
A_TAKE = 25

# phases
PH_SETUP = 0  # setup reveals ("choose")
PH_START = 1  # start of a turn: draw (24) or take the discard (25)
PH_DRAWN = 2  # holding a card drawn from the draw pile: replace (12..23) or discard and reveal (0..11)
PH_TAKEN = 3  # holding the card taken from the discard pile: must replace (12..23)
PH_OVER = 4  # episode over

# slot states
HIDDEN = 0
UP = 1
REMOVED = 2

# end reasons (record field ``end_reason``)
END_NONE = 0
END_GAME = 1  # normal end of the game (threshold / max_rounds / episode="round")
END_STALL = 2  # stall guard: a draw
END_TRUNCATED = 3  # max_turns reached

SETUP_CODES = {"choose": 0, "random": 1}
EPISODE_CODES = {"game": 0, "round": 1}
RESHUFFLE_CODES = {"keep_top": 0, "all_but_top_flip": 1}

# parameter vector indices
P_NUM_PLAYERS = 0
P_SETUP = 1
P_END_SCORE = 2
P_MAX_ROUNDS = 3  # 0 = no fixed number of rounds
P_EPISODE = 4
P_RESHUFFLE = 5
P_MAX_TURNS = 6
P_REWARD = 7
P_STALL_ROUNDS = 8  # 0 = no stall guard
NUM_PARAMS = 9

DEFAULT_MAX_TURNS = 2000
#: the largest max_rounds and max_turns: what the record's 16-bit round counter (round_no) holds
MAX_COUNT = 32_767
DEFAULT_STALL_ROUNDS = 20

FIELDS = [
    ("grid", np.int8, (MAX_PLAYERS, SLOTS)),  # card value of every slot (also hidden ones)
    ("up", np.int8, (MAX_PLAYERS, SLOTS)),  # HIDDEN / UP / REMOVED
    ("hidden", np.int8, (MAX_PLAYERS,)),  # face-down cards left per seat
    ("draw", np.int8, (DECK_SIZE,)),  # draw pile, top = draw[draw_len - 1]
    ("discard", np.int8, (DECK_SIZE,)),  # discard pile, top = discard[discard_len - 1]
    ("buf", np.int8, (DECK_SIZE,)),  # scratch (deal order, reshuffles)
    ("seen", np.int16, (NUM_VALUES,)),  # face-up cards by value: grids + discard pile + held card
    ("scores", np.int16, (MAX_PLAYERS,)),  # points of the last finished round (after doubling)
    ("totals", np.int32, (MAX_PLAYERS,)),  # game totals
    ("draw_len", np.int16),
    ("discard_len", np.int16),
    ("held", np.int8),  # card in hand (PH_DRAWN / PH_TAKEN)
    ("phase", np.int8),
    ("setup_done", np.int8),  # reveals made by the current seat in the setup phase
    ("goer", np.int8),  # seat that ended the current round (-1: none yet)
    ("final_left", np.int8),  # turns left in the final lap after the goer
    ("last_goer", np.int8),  # goer of the previous round (-1 in round 1)
    ("end_reason", np.int8),
    ("round_no", np.int16),  # rounds finished so far ("round" would shadow np.record.round)
    ("stall", np.int32),  # consecutive turns without a face-down card being revealed
    ("round_turns", np.int32),  # turns in the current round
]

STATE_DTYPE = state_dtype(MAX_PLAYERS, FIELDS)


@dataclass(frozen=True)
class SkyjoRules(Rules):
    """Every Skyjo option (defaults = the Magilano rules; see docs/skyjo.md).

    Each option's help is given beside it (`option`).
    """

    game_name = "skyjo"

    num_players: int = option(2, "2..8.")
    setup_reveal: str = option("choose",
        '``"choose"`` (a setup phase, each seat in order reveals two cards) or ``"random"``.')
    end_score: int = option(100,
        "the game ends after the round in which a total reaches it (default 100; 50 = short).")
    max_rounds: int | None = option(None, "``None`` or N (1..32,767): play exactly N rounds, no threshold.")
    episode: str = option("game", '``"game"`` (default) or ``"round"`` (one round is the episode).')
    reshuffle: str = option("keep_top",
        'draw pile empty -> ``"keep_top"`` (shuffle the discard pile but its top card into a new draw '
        'pile) or ``"all_but_top_flip"`` (shuffle all of it, then turn a new top card face up).')
    max_turns: int = option(DEFAULT_MAX_TURNS,
        "turn cap of the episode (turns, not actions), then truncated; at most 32,767.")
    stall_rounds: int | None = option(DEFAULT_STALL_ROUNDS,
        "the episode ends as a draw after ``stall_rounds * num_players`` consecutive turns in which no "
        "face-down card was revealed or replaced (0 or None: off).")
    reward: str = option("win", '``"win"`` or ``"score"``.')

    def _validate(self):
        check_int("num_players", self.num_players, MIN_PLAYERS, MAX_PLAYERS)
        check_choice("setup_reveal", self.setup_reveal, list(SETUP_CODES))
        check_int("end_score", self.end_score, 1, 1_000_000)
        # the record counts rounds in 16 bits (round_no, int16) and a round takes at least one turn: both
        # caps at 32,767 keep it from wrapping (issue 42.8)
        check_int("max_rounds", self.max_rounds, 1, MAX_COUNT, allow_none=True)
        check_choice("episode", self.episode, list(EPISODE_CODES))
        check_choice("reshuffle", self.reshuffle, list(RESHUFFLE_CODES))
        check_int("max_turns", self.max_turns, 1, MAX_COUNT)
        check_int("stall_rounds", self.stall_rounds, 0, 1_000_000, allow_none=True)
        check_choice("reward", self.reward, list(REWARD_CODES))
        if self.episode == "round" and self.max_rounds is not None:
            raise ValueError(
                "options episode='round' and max_rounds cannot be combined: episode='round' is always a "
                "single round; use episode='game' with max_rounds=N"
            )

    def params(self) -> np.ndarray:
        p = np.zeros(NUM_PARAMS, np.int32)
        p[P_NUM_PLAYERS] = self.num_players
        p[P_SETUP] = SETUP_CODES[self.setup_reveal]
        p[P_END_SCORE] = self.end_score
        p[P_MAX_ROUNDS] = 0 if self.max_rounds is None else self.max_rounds
        p[P_EPISODE] = EPISODE_CODES[self.episode]
        p[P_RESHUFFLE] = RESHUFFLE_CODES[self.reshuffle]
        p[P_MAX_TURNS] = self.max_turns
        p[P_REWARD] = REWARD_CODES[self.reward]
        p[P_STALL_ROUNDS] = 0 if self.stall_rounds is None else self.stall_rounds
        return p


#: the game's `cardgym.core.state.rules.Rules` subclass (``GameSpec.rules_cls``)
RULES = SkyjoRules
