"""The game kit: the public helpers for writing a cardgym game (docs/api.md, "Adding a game").

Every game, the built-in ones included, writes its folder from these; ``cardgym new-game NAME`` starts
one that uses them. The compiled helpers are ``numba.njit(cache=True)`` functions, to be called from a
game's kernels.

The spec and observations (`cardgym.core.game`, re-exported):
    `GameSpec` (``GameSpec.from_package(__name__, title=..., gym_name=...)`` in a game's
    ``__init__.py``), `Standing`, `state_dtype` (the common record header, then the game's fields),
    `Field`, `FlatEncoder`, `DictEncoder`, and the contract's tables `EXPORTS`, `OPTIONAL_EXPORTS`,
    `UTILITIES`, `MAX_BOTS`, `MAX_FLAT_ENCODERS`, `REQUIRED_BOTS`, `REQUIRED_OPTIONS`,
    `REQUIRED_RESULT_KEYS`; the status codes `RUNNING`, `TERMINATED`, `TRUNCATED`.
Rules options (`cardgym.core.rules`): `Rules`, `check_int`, `check_choice`, `check_bool`.
Layouts (`cardgym.kit.layout`): `Layout` and `Slot` (a flat observation's fields, with the offsets a
    kernel writes at: `offset`).
The record header (`cardgym.kit.header`, compiled): `start_record` (the start of every ``reset``),
    `clear_mask` (of every ``legal``), `clear_reward` (of every ``apply``).
Decks and piles (`cardgym.kit.cards`, compiled): `deck_order` (a shuffled or stacked deal order),
    `load_pile`, `top`, `pop`, `push`, `move_all`, `refill_from`, `count_values`.
Randomness (`cardgym.core.rng`, compiled): `seed_record`, `below`, `bot_below`, `shuffle`, `pick_legal`.
Search (`cardgym.kit.search`): `bind_search` (the determinized rollout loop bound to a game's
    parts), `budget_bot`, `shuffled_pool`, `confident_best`, `check_budget`; and the stock rollout
    value `win_draw_loss` (`cardgym.kit.value`, compiled).
State checks (`cardgym.core.invariants`): `bad`, `in_range`, `all_in_range`, `all_equal`,
    `same_cards`, `check_codes`.
"""

from __future__ import annotations

from ..core.game import (
    EXPORTS,
    MAX_BOTS,
    MAX_FLAT_ENCODERS,
    OPTIONAL_EXPORTS,
    REQUIRED_BOTS,
    REQUIRED_OPTIONS,
    REQUIRED_RESULT_KEYS,
    RUNNING,
    TERMINATED,
    TRUNCATED,
    UTILITIES,
    DictEncoder,
    Field,
    FlatEncoder,
    GameSpec,
    Standing,
    state_dtype,
)
from ..core.worlds import Hidden
from ..core.invariants import all_equal, all_in_range, bad, check_codes, in_range, same_cards
from ..core.rng import below, bot_below, pick_legal, seed_record, shuffle
from ..core.rules import Rules, check_bool, check_choice, check_int
from .cards import count_values, deck_order, load_pile, move_all, pop, push, refill_from, top
from .header import clear_mask, clear_reward, start_record
from .layout import Layout, Slot, offset
from .search import bind_search, budget_bot, check_budget, confident_best, shuffled_pool
from .value import win_draw_loss

__all__ = [
    "EXPORTS", "OPTIONAL_EXPORTS", "UTILITIES", "MAX_BOTS", "MAX_FLAT_ENCODERS", "REQUIRED_BOTS",
    "REQUIRED_OPTIONS", "REQUIRED_RESULT_KEYS", "RUNNING", "TERMINATED", "TRUNCATED", "GameSpec", "Standing", "state_dtype", "Field", "FlatEncoder",
    "DictEncoder", "Rules", "check_int", "check_choice", "check_bool", "Layout", "Slot", "offset",
    "start_record", "clear_mask", "clear_reward", "deck_order", "load_pile", "top", "pop", "push",
    "refill_from", "count_values", "move_all", "seed_record", "below", "bot_below", "shuffle", "pick_legal", "bind_search",
    "budget_bot", "shuffled_pool", "confident_best", "check_budget", "win_draw_loss", "bad", "in_range",
    "all_in_range", "all_equal", "same_cards", "check_codes", "Hidden",
]
