"""SkipBo (PettingZoo AEC, Gymnasium single-agent). Documentation: docs/skipbo.md.

``env(**kwargs)`` is the wrapped AEC environment, ``raw_env`` the bare one, ``SkipBoEnv`` the
Gymnasium environment registered as ``cardgym/SkipBo-v0``.
"""

from .core.api import game_entry_points
from .games.skipbo import GAME

raw_env, env, SkipBoEnv = game_entry_points(GAME, __name__, "SkipBoEnv")

__all__ = ["GAME", "raw_env", "env", "SkipBoEnv"]
