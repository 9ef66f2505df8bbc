"""The binder: a game's kernels bound into the compiled template ``core/bound.py``.

`compiled` is what `cardgym.core.game.GameSpec.compiled` returns: one module per ``(game, bot, obs,
bots)`` binding, loaded from the template and kept for the life of the process (`_COMPILED`).

Shared entry points: a function of the template that reaches no bot (``legal_one``, ``batch_apply``,
``reset_one``...) is the same code in every binding of a game, and one that reaches no encoder (a bot,
``batch_bot``...) the same in every encoder binding. Each binding therefore takes such functions from
the *smallest* binding that determines them (`template_dependencies` reads which globals each function
reaches): ``compiled(bot=1, obs=0).legal_one`` is ``compiled().legal_one``, its ``bot`` is
``compiled(bot=1).bot`` and its ``observe`` ``compiled(obs=0).observe``. numba resolves globals when it
compiles, so the episode loops of every binding call those shared dispatchers: a bot (the expert's
takes most of a game's compile time) or an encoder is compiled and cached once per game, not once per
surface that uses it (the quickstart's trainer, the AEC env, the Gymnasium env, ``cardgym play``, an
evaluation), and a later surface finds it in the cache (docs/benchmarks.md, "First use").
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import re
import sys
from pathlib import Path

#: what the template's dispatch holds (``BOT0..BOT3``, ``OBS0..OBS3`` in ``core/bound.py``)
MAX_BOTS = 4
MAX_FLAT_ENCODERS = 4


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
        _share(game, mod, bot, obs, bots)
    return mod


#: the template's globals that hold a game's bots / flat encoders (set by `_bind`)
_BOT_GLOBALS = frozenset({"BOT0", "BOT1", "BOT2", "BOT3"})
_OBS_GLOBALS = frozenset({"OBS0", "OBS1", "OBS2", "OBS3"})
#: the template's names that `_bind` points at one of several functions
_ALIASES = {"bot": ("bot_any", "bot_fixed"), "observe": ("observe_any", "observe_fixed", "observe_none")}


@functools.lru_cache(maxsize=None)
def template_dependencies() -> dict:
    """``{function name: (reaches a bot, reaches an encoder)}`` for every compiled function of the
    template (and the aliases ``bot``/``observe``), from the names each function's body refers to."""
    tree = ast.parse(_TEMPLATE.read_text(encoding="utf-8"))
    refs = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and any(
            isinstance(d, ast.Call) and getattr(d.func, "id", "") == "_jit" for d in node.decorator_list
        ):
            refs[node.name] = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} - {node.name}
    for alias, targets in _ALIASES.items():
        refs[alias] = set(targets)
    memo: dict = {}

    def reach(name, path=()):
        if name not in memo:
            uses_bot, uses_obs = False, False
            for r in refs[name]:
                if r in _BOT_GLOBALS:
                    uses_bot = True
                elif r in _OBS_GLOBALS:
                    uses_obs = True
                elif r in refs and r not in path:
                    b, o = reach(r, path + (name,))
                    uses_bot, uses_obs = uses_bot or b, uses_obs or o
            memo[name] = (uses_bot, uses_obs)
        return memo[name]

    return {name: reach(name) for name in refs}


def _share(game, mod, bot, obs, bots) -> None:
    """Point ``mod``'s functions that do not depend on its bot / encoder binding at those of the
    smallest binding that determines them (see the module's docstring)."""
    deps = template_dependencies()
    targets = {alias: next(t for t in names if getattr(mod, t) is getattr(mod, alias))
               for alias, names in _ALIASES.items()}  # the function each alias was bound to
    for name, (uses_bot, uses_obs) in deps.items():
        small = (bot if uses_bot else None, obs if uses_obs else None, bots if uses_bot else None)
        if small != (bot, obs, bots):
            setattr(mod, name, getattr(compiled(game, small[0], small[1], small[2]), name))
        elif name in _ALIASES:  # kept here: follow its function, which may come from a smaller binding
            setattr(mod, name, getattr(mod, targets[name]))


_COMPILED: dict = {}
_TEMPLATE = Path(__file__).with_name("bound.py")


def _identifier(name: str) -> str:
    """``name`` made a Python identifier (what numba's cache file names may hold)."""
    return re.sub(r"\W", "_", name)


def binding_tag(name: str, package: str) -> str:
    """What names a game's bindings of a shared template (``core/bound.py``, the search loop) in the
    kernel cache: the game's name, and for a game outside cardgym a hash of its package's sources
    (`cardgym.core.cache.source_tag`). numba checks only the template's own file, so without the hash
    an edited plugin game would load the machine code of its old rules. (A game inside cardgym needs no
    hash: any edit of cardgym's kernel files drops its whole cache, `cardgym.core.cache.refresh`.)"""
    from .cache import source_tag

    tag = _identifier(name)
    if package and not package.startswith("cardgym."):
        tag += "_" + source_tag(package)
    return tag


def _game_prefetch(game):
    """The optional ``prefetch(states, i)`` of the game folder's ``kernels.py`` (docs/api.md), or None."""
    if not game.package:
        return None
    try:
        kernels = importlib.import_module(f"{game.package}.kernels")
    except ImportError:
        return None
    return getattr(kernels, "prefetch", None)


def _bind(game, bot: int | None = None, obs: int | None = None, subset: tuple | None = None):
    bots = list(game.bots.values())
    if subset is not None and (not subset or not all(isinstance(b, int) and 0 <= b < len(bots) for b in subset)):
        raise ValueError(f"{game.name}: bots must be indices 0..{len(bots) - 1}, got {subset!r}")
    flats = [game.encoders[k].kernel for k in game.flat_encoders()]
    if not 1 <= len(bots) <= MAX_BOTS or not 1 <= len(flats) <= MAX_FLAT_ENCODERS:
        raise ValueError(f"{game.name}: the compiled dispatch holds 1-{MAX_BOTS} bots and 1-{MAX_FLAT_ENCODERS} "
                         "flat encoders")
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
    tag = binding_tag(game.name, game.package) + (f"_{tag}" if tag else "")
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
    mod.PREFETCH = _game_prefetch(game) or mod.prefetch_nothing
    for k in range(MAX_BOTS):
        setattr(mod, f"BOT{k}", bots[k] if k < len(bots) else bots[0])
        setattr(mod, f"OBS{k}", flats[k] if k < len(flats) else flats[0])
    return mod
