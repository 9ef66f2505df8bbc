"""Skyjo (Magilano): 2-8 players, 150 cards, a 3x4 grid each; lowest total wins. See docs/skyjo.md.

The folder follows the fixed game shape (docs/api.md, "Adding a game"): ``rules``, ``kernels``,
``observe``, ``text``, ``scene``, ``bots``, ``expert``, ``search``, ``invariants``; this module only
builds the `cardgym.core.game.GameSpec` from them.
"""

from __future__ import annotations

from ...core.game import GameSpec

GAME = GameSpec.from_package(
    __name__,
    title="Skyjo",
    gym_name="Skyjo",
    test_configs=[{"num_players": 2}, {"num_players": 4, "setup_reveal": "random"},
                  {"num_players": 3, "episode": "round", "reward": "score"}],
)

__all__ = ["GAME"]
