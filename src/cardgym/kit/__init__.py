"""The game kit: the public helpers for writing a cardgym game (docs/api.md, "Adding a game").

Every game, the built-in ones included, writes its folder from these; ``cardgym new-game NAME`` starts
one that uses them. The compiled helpers are ``numba.njit(cache=True)`` functions, to be called from a
game's kernels.

The spec and observations (`cardgym.core.contract.game`, re-exported):
    `GameSpec` (``GameSpec.from_package(__name__, title=..., gym_name=...)`` in a game's
    ``__init__.py``), `Standing`, `state_dtype` (the common record header, then the game's fields),
    `Field`, `FlatEncoder`, `DictEncoder`, and the contract's tables `EXPORTS`, `OPTIONAL_EXPORTS`,
    `UTILITIES`, `MAX_BOTS`, `MAX_FLAT_ENCODERS`, `REQUIRED_BOTS`, `REQUIRED_OPTIONS`,
    `REQUIRED_RESULT_KEYS`; the status codes `RUNNING`, `TERMINATED`, `TRUNCATED`.
Rules options (`cardgym.core.state.rules`): `Rules`, `option` (an option's default and its help, side by
    side), `check_int`, `check_choice`, `check_bool`, and `REWARD_CODES` (the ``reward`` option's codes).
Layouts (`cardgym.kit.layout`): `Layout` and `Slot` (a flat observation's fields, with the offsets a
    kernel writes at: `offset`; ``LAYOUT.encoder(observe, ...)`` is the `FlatEncoder` it serves).
The record header (`cardgym.kit.header`, compiled): `start_record` (the start of every ``reset``),
    `clear_mask` (of every ``legal``), `clear_reward` (of every ``apply``).
Decks and piles (`cardgym.kit.cards`, compiled): `deck_order` (a shuffled or stacked deal order),
    `load_pile`, `top`, `pop`, `push`, `move_all`, `refill_from`, `count_values`.
Randomness (`cardgym.core.compiled.rng`, compiled): `seed_record`, `below`, `bot_below`, `shuffle`, `pick_legal`,
    `next_seed` (a fresh seed drawn from a record's stream).
Memory (`cardgym.core.compiled.prefetch`, compiled): `prefetch_row` (a hint that a row is about to be read).
Search (`cardgym.kit.search`): `bind_search` (the determinized rollout loop bound to a game's
    parts), `budget_bot`, `shuffled_pool`, `confident_best`, `check_budget`; and the stock rollout
    value `win_draw_loss` (`cardgym.kit.value`, compiled).
State checks (`cardgym.core.state.invariants`): `bad`, `in_range`, `all_in_range`, `all_equal`,
    `same_cards`, `check_codes`.
Hidden information (`cardgym.core.contract.worlds`): `Hidden` (a game's ``WORLD``: what a seat does not see).
Scenes (`cardgym.render.scene`): `Scene`, `Region`, `Pile`, `Card`, `Palette` and the card kinds
    `VALUE`, `WILD`, `BACK`, `EMPTY`; for a scene builder, `check_viewer` (the ``viewer`` argument
    checked), `legal_mask` (the legal moves of the seat to act, to highlight) and `you` (``" (you)"``
    after the viewer's own seat).
"""

from __future__ import annotations

from cardgym.core.contract.game import (
    EXPORTS,
    MAX_BOTS,
    MAX_FLAT_ENCODERS,
    OPTIONAL_EXPORTS,
    REQUIRED_BOTS,
    REQUIRED_OPTIONS,
    REQUIRED_RESULT_KEYS,
    UTILITIES,
    DictEncoder,
    Field,
    FlatEncoder,
    GameSpec,
    Standing,
    state_dtype,
)
from cardgym.core.state.status import RUNNING, TERMINATED, TRUNCATED
from cardgym.core.state.invariants import all_equal, all_in_range, bad, check_codes, in_range, same_cards
from cardgym.core.compiled.prefetch import prefetch_row
from cardgym.core.compiled.rng import below, bot_below, next_seed, pick_legal, seed_record, shuffle
from cardgym.core.state.rules import REWARD_CODES, Rules, check_bool, check_choice, check_int, option
from cardgym.core.contract.worlds import Hidden
from ..render._common import check_viewer, legal_mask, you
from ..render.scene import BACK, EMPTY, VALUE, WILD, Card, Palette, Pile, Region, Scene
from .cards import count_values, deck_order, load_pile, move_all, pop, push, refill_from, top
from .header import clear_mask, clear_reward, start_record
from .layout import Layout, Slot, offset
from .search import bind_search, budget_bot, check_budget, confident_best, shuffled_pool
from .value import win_draw_loss

__all__ = [
    # the spec and observations
    "EXPORTS", "OPTIONAL_EXPORTS", "UTILITIES", "MAX_BOTS", "MAX_FLAT_ENCODERS", "REQUIRED_BOTS",
    "REQUIRED_OPTIONS", "REQUIRED_RESULT_KEYS", "RUNNING", "TERMINATED", "TRUNCATED", "GameSpec", "Standing",
    "state_dtype", "Field", "FlatEncoder", "DictEncoder",
    # rules options
    "Rules", "option", "check_int", "check_choice", "check_bool", "REWARD_CODES",
    # layouts
    "Layout", "Slot", "offset",
    # the record header, decks and piles
    "start_record", "clear_mask", "clear_reward", "deck_order", "load_pile", "top", "pop", "push",
    "refill_from", "count_values", "move_all",
    # randomness and memory
    "seed_record", "below", "bot_below", "shuffle", "pick_legal", "next_seed", "prefetch_row",
    # search
    "bind_search", "budget_bot", "shuffled_pool", "confident_best", "check_budget", "win_draw_loss",
    # state checks and hidden information
    "bad", "in_range", "all_in_range", "all_equal", "same_cards", "check_codes", "Hidden",
    # scenes
    "Scene", "Region", "Pile", "Card", "Palette", "VALUE", "WILD", "BACK", "EMPTY", "check_viewer",
    "legal_mask", "you",
]
