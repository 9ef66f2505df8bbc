"""cardgym: rule-exact, compiled reinforcement-learning environments for card games.

Games (names used everywhere): ``"skyjo"``, ``"skipbo"``, ``"skipbo_junior"``.

- PettingZoo AEC: ``cardgym.skyjo_v0.env(...)`` (also ``pettingzoo.make("aec", "cardgym/skyjo-v0")``)
- Gymnasium single agent: ``gymnasium.make("cardgym/Skyjo-v0", opponent="greedy")``
- Batched vector env: ``cardgym.make_vec("skyjo", num_envs=4096, opponent="random")``, also
  ``gymnasium.make_vec("cardgym/Skyjo-v0", num_envs=4096, opponent="random")`` (the ids' vector entry point)
"""

from __future__ import annotations

import importlib

from . import _wiring
from .core import cache as _cache

__version__ = "0.1.0"
_cache.install()
_wiring.plug_in()  # render and agents into core, which imports neither (docs/api.md, "Layers")

#: game name -> (PettingZoo module, Gymnasium id, Gymnasium class name)
GAMES = {
    "skyjo": ("cardgym.skyjo_v0", "cardgym/Skyjo-v0", "SkyjoEnv"),
    "skipbo": ("cardgym.skipbo_v0", "cardgym/SkipBo-v0", "SkipBoEnv"),
    "skipbo_junior": ("cardgym.skipbo_junior_v0", "cardgym/SkipBoJunior-v0", "SkipBoJuniorEnv"),
}


def get_game(name: str):
    """The `cardgym.core.game.GameSpec` of a game by name."""
    if name not in GAMES:
        raise ValueError(f"unknown game {name!r}; games: {sorted(GAMES)}")
    return importlib.import_module(GAMES[name][0]).GAME


def make_vec(game: str, num_envs: int, **kwargs):
    """A [`CardGameVectorEnv`][cardgym.core.vector.CardGameVectorEnv] of ``num_envs`` games of ``game``.

    Keyword arguments: ``opponent`` (bot name, default ``"random"``), ``seat``, ``observation``,
    ``autoreset_mode``, ``illegal_penalty``, ``copy`` and every rule option of the game.
    """
    from .core.vector import CardGameVectorEnv

    return CardGameVectorEnv(get_game(game), num_envs, **kwargs)


def _register():
    import gymnasium

    for name, (module, gym_id, cls) in GAMES.items():
        if gym_id not in gymnasium.registry:
            # gymnasium.make_vec(gym_id, num_envs=N) picks the vector entry point (one compiled batch,
            # cardgym.make_vec) unless vectorization_mode="sync"/"async" asks for N Python envs
            gymnasium.register(id=gym_id, entry_point=f"{module}:{cls}", vector_entry_point=f"{module}:make_vec")
    try:
        import pettingzoo
    except ImportError:  # pragma: no cover - pettingzoo is a core dependency
        return
    if hasattr(pettingzoo, "register"):
        for name, (module, _, _) in GAMES.items():
            env_name = module.rsplit(".", 1)[1].replace("_v", "-v")
            try:
                pettingzoo.register("aec", f"cardgym/{env_name}", entry_point=f"{module}:env")
            except Exception:  # already registered (re-import)
                pass


_register()


def __getattr__(name):
    # lazy submodules: cardgym.skyjo_v0 etc. compile nothing until used
    if name in ("skyjo_v0", "skipbo_v0", "skipbo_junior_v0"):
        return importlib.import_module(f"cardgym.{name}")
    raise AttributeError(f"module 'cardgym' has no attribute {name!r}")
