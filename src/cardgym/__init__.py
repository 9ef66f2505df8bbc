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


#: module paths that game authors and env users were shown in the docs of earlier releases (docs/api.md,
#: "Old import paths"): old path under ``cardgym.`` -> (its module now, where a game now imports its names
#: (``cardgym.kit``) or None, modules that now hold names the old module also had)
_MOVED_INSIDE = {
    "core.game": ("cardgym.core.contract.game", "cardgym.kit", ("cardgym.core.state.status",)),
    "core.rng": ("cardgym.core.compiled.rng", "cardgym.kit", ()),
    "core.rules": ("cardgym.core.state.rules", "cardgym.kit", ()),
    "core.invariants": ("cardgym.core.state.invariants", "cardgym.kit", ()),
    "core.status": ("cardgym.core.state.status", "cardgym.kit", ()),
    "core.worlds": ("cardgym.core.contract.worlds", "cardgym.kit", ()),
    "core.spec": ("cardgym.core.contract", None, ()),
    "core.spec.game": ("cardgym.core.contract.game", "cardgym.kit", ()),
    "core.spec.worlds": ("cardgym.core.contract.worlds", "cardgym.kit", ()),
    "core.spec.worlds_loop": ("cardgym.core.contract.worlds_loop", None, ()),
    "core.prefetch": ("cardgym.core.compiled.prefetch", "cardgym.kit", ()),
    "games._shared.search": ("cardgym.kit.search", "cardgym.kit", ()),
    "games._shared.search_loop": ("cardgym.kit.search_loop", "cardgym.kit", ()),
    "games._shared.layout": ("cardgym.kit.layout", "cardgym.kit", ()),
    "games._shared.cards": ("cardgym.kit.cards", "cardgym.kit", ()),
    "games._shared.header": ("cardgym.kit.header", "cardgym.kit", ()),
    "core.actions": ("cardgym.core.state.actions", None, ()),
    "core.records": ("cardgym.core.state.dicts", None, ()),
    "core.aec": ("cardgym.core.envs.aec", None, ("cardgym.core.envs.resets",)),
    "core.aec_wrappers": ("cardgym.core.envs.aec_wrappers", None, ()),
    "core.vector": ("cardgym.core.envs.vector", None, ("cardgym.core.envs.vector_engines",)),
    "core.vector_engines": ("cardgym.core.envs.vector_engines", None, ()),
    "core.single": ("cardgym.core.envs.single", None, ("cardgym.core.envs.episodes",)),
    "core.episodes": ("cardgym.core.envs.episodes", None, ()),
    "core.opponents": ("cardgym.core.envs.opponents", None, ()),
    "core.resets": ("cardgym.core.envs.resets", None, ()),
    "core.frames": ("cardgym.core.envs.frames", None, ()),
    "core.copies": ("cardgym.core.envs.copies", None, ()),
    "core.state_io": ("cardgym.core.envs.state_io", None, ()),
    "core.api": ("cardgym.core.envs.entry_points", None, ()),
    "core.plugins": ("cardgym.core.services", None, ()),
    "core.cache": ("cardgym.core.compiled.cache", None, ()),
    "core.fastcall": ("cardgym.core.compiled.fastcall", None, ()),
    "core.binder": ("cardgym.core.compiled.binder", None, ()),
    "core.bound": ("cardgym.core.compiled.bound", None, ()),
    "core.batch": ("cardgym.core.compiled.batch", None, ()),
}


def _moved(old: str) -> str:
    if old in _MOVED_INSIDE:
        new, kit, _ = _MOVED_INSIDE[old]
        hint = f"a game imports these names from {kit}" if kit else f"import {new} instead"
        msg = f"cardgym.{old} moved to {new}; {hint} (cardgym.{old} will be removed)"
    else:
        new = _MOVED[old]
        msg = f"cardgym.{old} moved to {new}; import {new} instead (cardgym.{old} will be removed)"
    warnings.warn(msg, DeprecationWarning, stacklevel=_caller_level())
    return new


def _old_module(old: str):
    """The module an old path gives: the new module itself, or (when the old module also held names now
    kept elsewhere) a module under the old name that reads the new one first, then those."""
    new, kit, also = _MOVED_INSIDE[old]
    module = importlib.import_module(new)
    if not also:
        return module
    import types

    shim = types.ModuleType(f"cardgym.{old}", module.__doc__)
    sources = [module, *map(importlib.import_module, also)]

    def __getattr__(name):
        for source in sources:
            if hasattr(source, name):
                return getattr(source, name)
        raise AttributeError(f"module 'cardgym.{old}' (now {new}) has no attribute {name!r}")

    shim.__getattr__ = __getattr__
    shim.__all__ = sorted({n for s in sources for n in getattr(s, "__all__", [k for k in vars(s) if k[:1] != "_"])})
    return shim


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
        if old in _MOVED or old in _MOVED_INSIDE:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        old = module.__name__[len("cardgym."):]
        # the import system returns what sys.modules holds under the name: the new module itself
        new = _moved(old)
        sys.modules[module.__name__] = _old_module(old) if old in _MOVED_INSIDE else importlib.import_module(new)


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
    """The `cardgym.core.contract.game.GameSpec` of a game by name (imported on first use)."""
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
