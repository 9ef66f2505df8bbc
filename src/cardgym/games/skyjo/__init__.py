"""Skyjo (Magilano): 2-8 players, 150 cards, a 3x4 grid each; lowest total wins. See docs/skyjo.md.

The folder follows the fixed game shape (docs/api.md, "Adding a game"): ``rules``, ``kernels``,
``observe``, ``text``, ``scene``, ``bots``, ``expert``, ``search``, ``invariants``; this module only
builds the `cardgym.core.contract.game.GameSpec` from them.
"""

from __future__ import annotations

from ...kit import GameSpec, Standing
from .._shared import presets

GAME = GameSpec.from_package(
    __name__,
    title="Skyjo",
    gym_name="Skyjo",
    contract=2,  # the game contract it is written for (docs/api.md, "The game contract")
    utility="head_to_head",
    standing=Standing("totals", better="lower"),  # multi-player ratings: lower total first
    test_configs=[{"num_players": 2}, {"num_players": 4, "setup_reveal": "random"},
                  {"num_players": 3, "episode": "round", "reward": "score"}],
    # trainer defaults: per-round points (dense) as a zero-sum difference, plus a win bonus at the end
    train_preset=dict(presets.CLONE_EXPERT, rules={"reward": "score"}, reward="diff", reward_scale=0.02, win_bonus=1.0,
                      opponents="greedy:0.7,random:0.05,self:0.25"),
)

__all__ = ["GAME"]
