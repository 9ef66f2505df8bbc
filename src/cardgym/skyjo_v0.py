"""Skyjo (PettingZoo AEC, Gymnasium single-agent). Documentation: docs/skyjo.md.

``env(**kwargs)`` is the wrapped AEC environment, ``raw_env`` the bare one, ``SkyjoEnv`` the
Gymnasium environment registered as ``cardgym/Skyjo-v0``. ``make_vec(num_envs, ...)``
is its compiled vector env (the id's ``vector_entry_point``: ``gymnasium.make_vec("cardgym/Skyjo-v0", num_envs=N)``).
"""

from .core.api import game_entry_points, vector_entry_point
from .games.skyjo import GAME

raw_env, env, SkyjoEnv = game_entry_points(GAME, __name__, "SkyjoEnv")
make_vec = vector_entry_point(GAME, __name__)

__all__ = ["GAME", "raw_env", "env", "SkyjoEnv", "make_vec"]
