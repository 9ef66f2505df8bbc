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
import importlib.abc
import importlib.util
import sys
import warnings

from . import registry as _registry
from . import wiring as _wiring
from cardgym.core.compiled import cache as _cache

# --- moved modules: old import paths, deprecated ---
#: top-level modules that moved into sub-packages (docs/api.md, "Layers"): ``import cardgym.sb3`` and
#: ``from cardgym.sb3 import X`` keep working for now, with a DeprecationWarning naming the new path
_MOVED = {
    "cli_options": "cardgym.app.options",
    "game_records": "cardgym.app.game_records",
    "docs_pages": "cardgym.app.pages",
    "sb3": "cardgym.wrappers.sb3",
    "mcp_server": "cardgym.cli.mcp_server",
    "play": "cardgym.cli.play",
    "warmup": "cardgym.cli.warmup",
    "viewcheck": "cardgym.testing.viewcheck",
}


def _moved(old: str) -> str:
    new = _MOVED[old]
    warnings.warn(f"cardgym.{old} moved to {new}; import {new} instead (cardgym.{old} will be removed)",
                  DeprecationWarning, stacklevel=_caller_level())
    return new


def _caller_level() -> int:
    # the first frame outside this module and importlib: the user's import statement
    frame, level = sys._getframe(2), 3
    while frame is not None and (frame.f_code.co_filename == __file__
                                 or frame.f_code.co_filename.startswith("<frozen")):
        frame, level = frame.f_back, level + 1
    return level


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``cardgym.<old>`` for a moved module: its import is the new module, under both names."""

    def find_spec(self, fullname, path=None, target=None):
        old = fullname[len("cardgym."):] if fullname.startswith("cardgym.") else None
        if old in _MOVED:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        old = module.__name__[len("cardgym."):]
        # the import system returns what sys.modules holds under the name: the new module itself
        sys.modules[module.__name__] = importlib.import_module(_moved(old))


if not any(isinstance(f, _MovedModules) for f in sys.meta_path):
    sys.meta_path.insert(0, _MovedModules())
# --- end of moved modules ---

__version__ = "0.1.0"
_cache.install()
_wiring.plug_in()  # render and agents into core, which imports neither (docs/api.md, "Layers")

#: game name -> `cardgym.registry.GameEntry` ``(module, gym_id, gym_class, name, title, package, ...)``:
#: every game discovered in ``cardgym.games``, the ``cardgym.games`` entry points and ``CARDGYM_GAMES``
#: (docs/api.md, "Registering a game"). Discovery imports no game.
GAMES = _registry.discover()


def get_game(name: str):
    """The `cardgym.core.spec.game.GameSpec` of a game by name (imported on first use)."""
    return _registry.get(name)


def make_vec(game: str, num_envs: int, **kwargs):
    """A [`CardGameVectorEnv`][cardgym.core.envs.vector.CardGameVectorEnv] of ``num_envs`` games of ``game``.

    Keyword arguments: ``opponent`` (bot name, default ``"random"``), ``seat``, ``observation``,
    ``autoreset_mode``, ``illegal_penalty``, ``copy`` and every rule option of the game.
    """
    from cardgym.core.envs.vector import CardGameVectorEnv

    return CardGameVectorEnv(get_game(game), num_envs, **kwargs)


def __getattr__(name):
    if name in _MOVED:
        return importlib.import_module(f"cardgym.{name}")  # warns, once
    # lazy submodules: cardgym.skyjo_v0 etc. compile nothing until used; one for every discovered game
    if name.rpartition("_v")[2].isdigit() and name in {e.env_name for e in GAMES.values()}:
        return importlib.import_module(f"cardgym.{name}")
    raise AttributeError(f"module 'cardgym' has no attribute {name!r}")
