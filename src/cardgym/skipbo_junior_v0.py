"""SkipBoJunior (PettingZoo AEC, Gymnasium single-agent). Documentation: docs/skipbo_junior.md.

``env(**kwargs)`` is the wrapped AEC environment, ``raw_env`` the bare one, ``SkipBoJuniorEnv`` the
Gymnasium environment registered as ``cardgym/SkipBoJunior-v0``.
"""

from .core.api import game_entry_points
from .games.skipbo_junior import GAME

raw_env, env, SkipBoJuniorEnv = game_entry_points(GAME, __name__, "SkipBoJuniorEnv")

__all__ = ["GAME", "raw_env", "env", "SkipBoJuniorEnv"]
