"""Skyjo (Magilano): 2-8 players, 150 cards, a 3x4 grid each; lowest total wins. See docs/skyjo.md."""

from __future__ import annotations

from ...core.game import DictEncoder, FlatEncoder, GameSpec
from .._shared.presets import CLONE_EXPERT
from . import views
from .invariants import cards_of, check_state
from .bots import bot_greedy, bot_random
from .expert import bot_expert
from .search import bot_search
from .kernels import apply, legal, observe_vector, reset, state_vector
from .rules import DECK, MAX_PLAYERS, MIN_PLAYERS, NUM_ACTIONS, STATE_DTYPE, SkyjoRules

GAME = GameSpec(
    name="skyjo",
    title="Skyjo",
    env_name="skyjo_v0",
    gym_id="cardgym/Skyjo-v0",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    num_actions=NUM_ACTIONS,
    rules_cls=SkyjoRules,
    state_dtype=STATE_DTYPE,
    deck=DECK,
    check_state=check_state,
    cards_of=cards_of,
    reset=reset,
    legal=legal,
    apply=apply,
    state_vector=state_vector,
    state_size=views.state_size_of,
    encoders={
        "vector": FlatEncoder(
            "vector",
            views.vector_layout,
            kernel=observe_vector,
            doc="one-hot grids of every seat (observer first), discard top, held card, phase, seats, "
            "scores, draw-pile size and unseen card counts; see docs/skyjo.md",
        ),
        "dict": DictEncoder(
            "dict",
            views.dict_space,
            views.dict_encode,
            doc="readable grids (value, 13 = face down, 14 = removed), piles, scores; see docs/skyjo.md",
        ),
    },
    bots={"random": bot_random, "greedy": bot_greedy, "expert": bot_expert, "search": bot_search},
    action_to_str=views.action_to_str,
    render_ansi=views.render_ansi,
    result=views.result,
    extras={"cards": views.cards, "resample_hidden": views.resample_hidden,
            "describe_action": views.describe_action},
    # trainer defaults: per-round points (dense) as a zero-sum difference, plus a win bonus at the end
    train_preset=dict(CLONE_EXPERT, rules={"reward": "score"}, reward="diff", reward_scale=0.02, win_bonus=1.0,
                      opponents="greedy:0.7,random:0.05,self:0.25"),
)

__all__ = ["GAME", "SkyjoRules"]
