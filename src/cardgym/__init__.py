"""cardgym: rule-exact, compiled reinforcement-learning environments for card games.

Games (names used everywhere): ``"skyjo"``, ``"skipbo"``, ``"skipbo_junior"``, and any other game
discovered by `cardgym.registry` (``cardgym.GAMES`` lists them all).

- PettingZoo AEC: ``cardgym.skyjo_v0.env(...)`` (also ``pettingzoo.make("aec", "cardgym/skyjo-v0")``)
- Gymnasium single agent: ``gymnasium.make("cardgym/Skyjo-v0", opponent="greedy")``
- Batched vector env: ``cardgym.make_vec("skyjo", num_envs=4096, opponent="random")``, also
  ``gymnasium.make_vec("cardgym/Skyjo-v0", num_envs=4096, opponent="random")`` (the ids' vector entry point)
"""

from __future__ import annotations

import importlib

from . import _wiring
from . import registry as _registry
from .core import cache as _cache

__version__ = "0.1.0"
_cache.install()
_wiring.plug_in()  # render and agents into core, which imports neither (docs/api.md, "Layers")

#: game name -> `cardgym.registry.GameEntry` ``(module, gym_id, gym_class, name, title, package, ...)``:
#: every game discovered in ``cardgym.games``, the ``cardgym.games`` entry points and ``CARDGYM_GAMES``
#: (docs/api.md, "Registering a game"). Discovery imports no game.
GAMES = _registry.discover()


def get_game(name: str):
    """The `cardgym.core.game.GameSpec` of a game by name (imported on first use)."""
    return _registry.get(name)


def make_vec(game: str, num_envs: int, **kwargs):
    """A [`CardGameVectorEnv`][cardgym.core.vector.CardGameVectorEnv] of ``num_envs`` games of ``game``.

    Keyword arguments: ``opponent`` (bot name, default ``"random"``), ``seat``, ``observation``,
    ``autoreset_mode``, ``illegal_penalty``, ``copy`` and every rule option of the game.
    """
    from .core.vector import CardGameVectorEnv

    return CardGameVectorEnv(get_game(game), num_envs, **kwargs)


def __getattr__(name):
    # lazy submodules: cardgym.skyjo_v0 etc. compile nothing until used; one for every discovered game
    if name.rpartition("_v")[2].isdigit() and name in {e.env_name for e in GAMES.values()}:
        return importlib.import_module(f"cardgym.{name}")
    raise AttributeError(f"module 'cardgym' has no attribute {name!r}")
