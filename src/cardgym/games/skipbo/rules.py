"""Skip-Bo: rule options, parameter vector, action table constants and the state record.

Card codes: ``1..12`` for the numbers, ``0`` for the SKIP-BO wild card. 162 cards: 12 of each number
and 18 wilds. See ``docs/skipbo.md`` for the rules as implemented.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

import numpy as np

from ...kit import REWARD_CODES, Rules, check_bool, check_choice, check_int, option, state_dtype
from .._shared.builds import ASCENDING, TWO_UP_TWO_DOWN

NUM_CODES = 13  # card codes 0 (wild) .. 12
WILD = 0
TOP = 12  # a build pile is complete at 12 cards
NUM_PILES = 4  # build piles
NUM_DISCARDS = 4  # discard piles per player
HAND = 5
MIN_PLAYERS, MAX_PLAYERS = 2, 6
DECK_SIZE = 162
MAX_STOCK = DECK_SIZE // MIN_PLAYERS  # 81
PILE_CAP = DECK_SIZE  # capacity of one discard pile

#: every card of one deck (any order)
FULL_DECK = np.array([WILD] * 18 + [v for v in range(1, 13) for _ in range(12)], dtype=np.int8)
DECK = FULL_DECK
#: copies of each code in the deck
CODE_COUNTS = np.bincount(FULL_DECK, minlength=NUM_CODES).astype(np.int16)

# ---- action table (Discrete(145), identical for every variant) ----
NUM_ACTIONS = 145
NUM_SOURCES = 23
S_STOCK = 0  # own stock top
S_HAND_WILD = 13  # 1..12: hand card of that value, 13: hand wild
S_DISCARD = 14  # 14..17: own discard pile 0..3 top
S_PARTNER_STOCK = 18
S_PARTNER_DISCARD = 19  # 19..22: partner's discard pile 0..3 top
A_DISCARD = 92  # 92 + card*4 + pile, card 0..11 = value 1..12, 12 = wild
A_PASS = 144

# ---- parameter vector ----
P_NUM_PLAYERS = 0
P_STOCK = 1
P_FIRST = 2  # first seat, -1 = random
P_RECYCLE = 3  # 0 when_empty, 1 immediately
P_RECYCLE_BUILDS = 4
P_STALL_ROUNDS = 5  # 0 = off
P_MAX_TURNS = 6
P_MATCH = 7  # 0 = one hand
P_STOCK_POINTS = 8
P_TEAMS = 9
P_WILD_COVER = 10
P_DIRECTIONS = 11  # 0 ascending, 1 two_up_two_down
P_REWARD = 12  # 0 win, 1 score
NUM_PARAMS = 13

RECYCLE_CODES = {"when_empty": 0, "immediately": 1}
DIRECTION_CODES = {"ascending": ASCENDING, "two_up_two_down": TWO_UP_TWO_DOWN}
DEFAULT_MAX_TURNS = 3000
#: the largest max_turns of a match (match_target set): what the record's 16-bit hand count holds
MAX_MATCH_TURNS = 32_767
DEFAULT_STALL_ROUNDS = 2
# Recycling lets cards cycle hand -> build pile -> completed -> draw pile -> hand, so a player who never
# discards could play forever within one turn: a turn reaching this many plays truncates the episode.
MAX_TURN_PLAYS = 2 * 162

# outcome of the last hand (record field ``outcome``)
OUT_NONE = 0
OUT_WIN = 1
OUT_DRAW = 2  # stall rule
OUT_TRUNCATED = 3  # unused: a truncation is status 2, not a hand outcome

FIELDS = [
    # small, hot fields first (read by legal/observe at every decision), big piles last
    ("hand", np.int8, (MAX_PLAYERS, NUM_CODES)),  # hand as counts per code (order is irrelevant)
    ("hand_len", np.int8, (MAX_PLAYERS,)),
    ("stop", np.int8, (MAX_PLAYERS,)),  # stock top code, -1 empty (kept in step with ``stock``)
    ("dtop", np.int8, (MAX_PLAYERS, NUM_DISCARDS)),  # discard-pile top codes, -1 empty
    ("heights", np.int8, (NUM_PILES,)),  # values played on each pile (fixes the value needed next)
    ("bcounts", np.int8, (NUM_PILES,)),  # cards physically on each pile
    ("cover", np.int8),  # wild_must_be_covered: build pile whose wild must be covered now, -1 none
    ("played", np.int8),  # a card went to a build pile during the current turn
    ("turn_plays", np.int16),  # cards played to build piles during the current turn
    ("hand_start", np.int8),  # seat that started the current hand
    ("winner", np.int8),  # winning seat of the last finished hand, -1 none
    ("outcome", np.int8),  # OUT_* of the last finished hand
    ("stock_len", np.int16, (MAX_PLAYERS,)),
    ("disc_len", np.int16, (MAX_PLAYERS, NUM_DISCARDS)),
    ("draw_len", np.int16),
    ("done_len", np.int16),
    ("idle", np.int16),  # consecutive turns with no build play while nothing can be drawn/recycled
    ("hands", np.int16),  # hands finished in this episode
    ("hand_turns", np.int32),  # turns in the current hand
    ("points", np.int32, (MAX_PLAYERS,)),  # points of the last finished hand, by seat
    ("totals", np.int32, (MAX_PLAYERS,)),  # match totals
    ("disc_cnt", np.int16, (MAX_PLAYERS, NUM_DISCARDS, NUM_CODES)),  # counts per code, incremental
    ("_bot_pos", np.int16, (2 * NUM_DISCARDS,)),  # greedy bot scratch (planning only)
    ("_bot_hand", np.int8, (NUM_CODES,)),  # greedy bot scratch (planning only)
    ("_bot_need", np.int8, (NUM_PILES,)),  # greedy bot scratch (planning only)
    ("builds", np.int8, (NUM_PILES, TOP)),  # build piles, bottom first (wilds keep code 0)
    ("stock", np.int8, (MAX_PLAYERS, MAX_STOCK)),  # bottom first; top = stock[i, stock_len[i]-1]
    ("draw", np.int8, (DECK_SIZE,)),  # draw pile, top (next card drawn) = draw[draw_len-1]
    ("done", np.int8, (DECK_SIZE,)),  # completed build piles (out of play until recycled)
    ("disc", np.int8, (MAX_PLAYERS, NUM_DISCARDS, PILE_CAP)),  # discard piles, bottom first
]

STATE_DTYPE = state_dtype(MAX_PLAYERS, FIELDS)


def default_stock_size(num_players: int) -> int:
    return 30 if num_players <= 4 else 20


@dataclass(frozen=True)
class SkipBoRules(Rules):
    """Every rule option of Skip-Bo (defaults = the Mattel rules; see docs/skipbo.md).

    Each option's help is given beside it (`option`).
    """

    game_name = "skipbo"

    num_players: int = option(2, "2..6.")
    stock_size: Optional[int] = option(None,
        "cards per stock; ``None`` (default) = 30 with 2-4 players, 20 with 5-6. Any size the deck can "
        "deal (``1 .. 162 // num_players``) is allowed: the *quick* variant is e.g. 10 or 15.")
    first_player: Union[int, str] = option(0,
        'a seat (default 0) or ``"random"``. Later hands of a match rotate the start.')
    recycle: str = option("when_empty",
        '``"when_empty"`` (default: the completed stack is shuffled into a new draw pile when a card '
        'must be drawn from an empty draw pile) or ``"immediately"`` (each completed build pile is '
        "shuffled under the draw pile as soon as it completes).")
    recycle_build_piles: bool = option(True,
        "(default True, Mattel electronic edition) when a card must be drawn and neither the draw pile "
        "nor the completed stack has any, the cards under each build pile's top card are shuffled into "
        "a new draw pile.")
    stall_rounds: Optional[int] = option(DEFAULT_STALL_ROUNDS,
        "the hand is a draw after ``stall_rounds * num_players`` turns in a row with no card played to "
        "a build pile while nothing can be drawn or recycled (default 2; ``None`` or 0 = off).")
    max_turns: int = option(DEFAULT_MAX_TURNS,
        "turn cap of the episode (turns, not actions; at most 32,767 with match_target); reaching it "
        "truncates (default 3000).")
    match_target: Optional[int] = option(None,
        "``None`` (default, one hand is the episode) or the points total (500 officially) that ends a "
        "match of several hands.")
    stock_points: bool = option(True,
        "True (default): a hand's winner scores 25 + 5 per card left in the opponents' stocks; False: "
        "25 only.")
    teams: bool = option(False, "partnership play (4 or 6 players; seat i's partner is (i + n/2) mod n).")
    wild_must_be_covered: bool = option(False,
        "a wild may go on a build pile only when the same player can cover it at once with the numbered "
        "card that follows; that covering play is then forced.")
    build_directions: str = option("ascending",
        '``"ascending"`` (default) or ``"two_up_two_down"`` (build piles 2 and 3 go 12 -> 1; no '
        "publisher source).")
    reward: str = option("win", '``"win"`` (default) or ``"score"``.')

    def _validate(self):
        check_int("num_players", self.num_players, MIN_PLAYERS, MAX_PLAYERS)
        n = self.num_players
        if self.stock_size is None:
            object.__setattr__(self, "stock_size", default_stock_size(n))
        else:
            if type(self.stock_size) is not int:
                raise ValueError(f"option stock_size must be an integer or None, got {self.stock_size!r}")
            if self.stock_size < 1 or self.stock_size * n > DECK_SIZE:
                raise ValueError(
                    f"option stock_size={self.stock_size} cannot be dealt to {n} players from the "
                    f"{DECK_SIZE}-card deck; allowed: 1..{DECK_SIZE // n} (None = 30 with 2-4 players, "
                    f"20 with 5-6)"
                )
        if isinstance(self.first_player, str):
            check_choice("first_player", self.first_player, ["random"])
        else:
            check_int("first_player", self.first_player, 0, n - 1)
        check_choice("recycle", self.recycle, list(RECYCLE_CODES))
        check_bool("recycle_build_piles", self.recycle_build_piles)
        check_int("stall_rounds", self.stall_rounds, 0, 1_000_000, allow_none=True)
        check_int("max_turns", self.max_turns, 1, 2**31 - 1)
        check_int("match_target", self.match_target, 1, 1_000_000, allow_none=True)
        if self.match_target is not None and self.max_turns > MAX_MATCH_TURNS:
            # the record counts a match's hands in 16 bits (hands, int16), a hand takes at least one turn
            raise ValueError(f"option max_turns={self.max_turns} is out of range with match_target; allowed: "
                             f"1..{MAX_MATCH_TURNS} (a match counts its hands in 16 bits)")
        check_bool("stock_points", self.stock_points)
        check_bool("teams", self.teams)
        if self.teams and n not in (4, 6):
            raise ValueError(
                f"option teams=True needs 4 or 6 players (partners sit opposite), got num_players={n}; "
                "allowed: num_players in [4, 6] with teams=True"
            )
        check_bool("wild_must_be_covered", self.wild_must_be_covered)
        check_choice("build_directions", self.build_directions, list(DIRECTION_CODES))
        check_choice("reward", self.reward, list(REWARD_CODES))

    def partner(self, seat: int) -> int:
        """Seat of ``seat``'s partner (teams), else ``-1``."""
        return (seat + self.num_players // 2) % self.num_players if self.teams else -1

    def params(self) -> np.ndarray:
        p = np.zeros(NUM_PARAMS, np.int32)
        p[P_NUM_PLAYERS] = self.num_players
        p[P_STOCK] = self.stock_size
        p[P_FIRST] = -1 if self.first_player == "random" else int(self.first_player)
        p[P_RECYCLE] = RECYCLE_CODES[self.recycle]
        p[P_RECYCLE_BUILDS] = int(self.recycle_build_piles)
        p[P_STALL_ROUNDS] = 0 if self.stall_rounds is None else self.stall_rounds
        p[P_MAX_TURNS] = self.max_turns
        p[P_MATCH] = 0 if self.match_target is None else self.match_target
        p[P_STOCK_POINTS] = int(self.stock_points)
        p[P_TEAMS] = int(self.teams)
        p[P_WILD_COVER] = int(self.wild_must_be_covered)
        p[P_DIRECTIONS] = DIRECTION_CODES[self.build_directions]
        p[P_REWARD] = REWARD_CODES[self.reward]
        return p


RULES = SkipBoRules
