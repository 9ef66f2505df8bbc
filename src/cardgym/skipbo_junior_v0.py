"""SkipBoJunior (PettingZoo AEC, Gymnasium single-agent). Documentation: docs/skipbo_junior.md.

``env(**kwargs)`` is the wrapped AEC environment, ``raw_env`` the bare one, ``SkipBoJuniorEnv`` the
Gymnasium environment registered as ``cardgym/SkipBoJunior-v0``. ``make_vec(num_envs, ...)``
is its compiled vector env (the id's ``vector_entry_point``: ``gymnasium.make_vec("cardgym/SkipBoJunior-v0", num_envs=N)``).
"""

from .core.api import game_entry_points, vector_entry_point
from .games.skipbo_junior import GAME

raw_env, env, SkipBoJuniorEnv = game_entry_points(GAME, __name__, "SkipBoJuniorEnv")
make_vec = vector_entry_point(GAME, __name__)

__all__ = ["GAME", "raw_env", "env", "SkipBoJuniorEnv", "make_vec"]
