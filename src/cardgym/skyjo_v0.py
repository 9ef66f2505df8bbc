"""Skyjo (PettingZoo AEC, Gymnasium single-agent). Documentation: docs/skyjo.md.

``env(**kwargs)`` is the wrapped AEC environment, ``raw_env`` the bare one, ``SkyjoEnv`` the
Gymnasium environment registered as ``cardgym/Skyjo-v0``.
"""

from .core.api import game_entry_points
from .games.skyjo import GAME

raw_env, env, SkyjoEnv = game_entry_points(GAME, __name__, "SkyjoEnv")

__all__ = ["GAME", "raw_env", "env", "SkyjoEnv"]
