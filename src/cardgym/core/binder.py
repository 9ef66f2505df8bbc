"""The binder: a game's kernels bound into the compiled template ``core/bound.py``.

`compiled` is what `cardgym.core.game.GameSpec.compiled` returns: one module per ``(game, bot, obs,
bots)`` binding, loaded from the template and kept for the life of the process (`_COMPILED`).
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path


def compiled(game, bot: int | None = None, obs: int | None = None, bots: tuple | None = None):
    """The binding of ``game`` (see `cardgym.core.game.GameSpec.compiled` for the arguments)."""
    if bots is not None:
        bots = tuple(sorted(set(bots)))
        if bot is not None:
            raise ValueError(f"{game.name}: compiled() takes bot= or bots=, not both")
        if bots == tuple(range(len(game.bots))):
            bots = None
    key = (game.name, bot, obs, bots)
    mod = _COMPILED.get(key)
    if mod is None:
        mod = _bind(game, bot, obs, bots)
        _COMPILED[key] = mod
    return mod


_COMPILED: dict = {}
_TEMPLATE = Path(__file__).with_name("bound.py")


def _identifier(name: str) -> str:
    """``name`` made a Python identifier (what numba's cache file names may hold)."""
    return re.sub(r"\W", "_", name)


def _bind(game, bot: int | None = None, obs: int | None = None, subset: tuple | None = None):
    bots = list(game.bots.values())
    if subset is not None and (not subset or not all(isinstance(b, int) and 0 <= b < len(bots) for b in subset)):
        raise ValueError(f"{game.name}: bots must be indices 0..{len(bots) - 1}, got {subset!r}")
    flats = [game.encoders[k].kernel for k in game.flat_encoders()]
    if not 1 <= len(bots) <= 4 or not 1 <= len(flats) <= 4:
        raise ValueError(f"{game.name}: the compiled dispatch holds 1-4 bots and 1-4 flat encoders")
    if bot is not None and not (isinstance(bot, int) and 0 <= bot < len(bots)):
        raise ValueError(f"{game.name}: bot index must be None or 0..{len(bots) - 1}, got {bot!r}")
    if obs is not None and not (isinstance(obs, int) and -1 <= obs < len(flats)):
        raise ValueError(f"{game.name}: flat encoder index must be None, -1 or 0..{len(flats) - 1}, got {obs!r}")
    tag = (("" if bot is None else f"b{bot}") + ("" if subset is None else "B" + "".join(map(str, subset)))
           + ("" if obs is None else f"o{obs if obs >= 0 else 'n'}"))
    name = f"cardgym.games.{game.name}._bound" + (f"_{tag}" if tag else "")
    # numba names a cache entry by the template's file and the function's qualified name, and keys it by
    # signature only: two games with one record dtype would share entries (and each other's kernels).
    # The game's name in TAG gives every game its own.
    tag = _identifier(game.name) + (f"_{tag}" if tag else "")
    spec = importlib.util.spec_from_file_location(name, _TEMPLATE)
    mod = importlib.util.module_from_spec(spec)
    mod.TAG = tag  # read by the template before it defines anything: names its cache entries
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    if bot is not None:
        bots = [bots[bot]]
        mod.bot = mod.bot_fixed
    mod.BOT_SLOTS = {k: k for k in range(len(bots))}
    if subset is not None:
        bots = [bots[k] for k in subset]
        mod.BOT_SLOTS = {k: slot for slot, k in enumerate(subset)}
    if obs is not None:
        if obs >= 0:
            flats = [flats[obs]]
            mod.observe = mod.observe_fixed
        else:
            mod.observe = mod.observe_none
    mod.RESET, mod.LEGAL, mod.APPLY, mod.STATE_VECTOR = game.reset, game.legal, game.apply, game.state_vector
    for k in range(4):
        setattr(mod, f"BOT{k}", bots[k] if k < len(bots) else bots[0])
        setattr(mod, f"OBS{k}", flats[k] if k < len(flats) else flats[0])
    return mod
