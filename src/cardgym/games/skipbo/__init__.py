"""Skip-Bo (Mattel): classic, teams, quick, match scoring and variants. See docs/skipbo.md."""

from __future__ import annotations

from ...core.game import DictEncoder, FlatEncoder, GameSpec
from .._shared.presets import CLONE_EXPERT
from .bots import bot_greedy, bot_random
from .expert import bot_expert
from .invariants import cards_of, check_state
from .search import bot_search
from .kernels import apply, legal, reset, state_size_n, state_vector
from .observe import dict_encode, dict_space, observe_vector, vector_layout
from .rules import FULL_DECK, MAX_PLAYERS, MIN_PLAYERS, NUM_ACTIONS, STATE_DTYPE, SkipBoRules
from .view import action_to_str, cards, render_ansi, resample_hidden, result

GAME = GameSpec(
    name="skipbo",
    title="Skip-Bo",
    env_name="skipbo_v0",
    gym_id="cardgym/SkipBo-v0",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    num_actions=NUM_ACTIONS,
    rules_cls=SkipBoRules,
    state_dtype=STATE_DTYPE,
    deck=FULL_DECK,
    check_state=check_state,
    cards_of=cards_of,
    reset=reset,
    legal=legal,
    apply=apply,
    state_vector=state_vector,
    state_size=lambda rules: int(state_size_n(rules.num_players)),
    encoders={
        "vector": FlatEncoder(
            "vector", vector_layout, observe_vector,
            "flat float32: own hand counts, every seat's stock top/size and open discard piles (relative "
            "seats), build piles, pile sizes, turn phase, match totals",
        ),
        "dict": DictEncoder("dict", dict_space, dict_encode, "structured view of the same information"),
    },
    bots={"random": bot_random, "greedy": bot_greedy, "expert": bot_expert, "search": bot_search},
    action_to_str=action_to_str,
    render_ansi=render_ansi,
    result=result,
    extras={"cards": cards, "resample_hidden": resample_hidden},
    train_preset=dict(CLONE_EXPERT, hidden=(512, 512), opponents="greedy:0.5,random:0.2,self:0.3"),
)

__all__ = ["GAME", "SkipBoRules"]
