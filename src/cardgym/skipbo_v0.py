"""SkipBo (PettingZoo AEC, Gymnasium single-agent). Documentation: docs/skipbo.md.

``env(**kwargs)`` is the wrapped AEC environment, ``raw_env`` the bare one, ``SkipBoEnv`` the
Gymnasium environment registered as ``cardgym/SkipBo-v0``. ``make_vec(num_envs, ...)``
is its compiled vector env (the id's ``vector_entry_point``: ``gymnasium.make_vec("cardgym/SkipBo-v0", num_envs=N)``).
"""

from .core.api import game_entry_points, vector_entry_point
from .games.skipbo import GAME

raw_env, env, SkipBoEnv = game_entry_points(GAME, __name__, "SkipBoEnv")
make_vec = vector_entry_point(GAME, __name__)

__all__ = ["GAME", "raw_env", "env", "SkipBoEnv", "make_vec"]
