"""The one list of games: discovered, never written down.

A game is a package whose ``__init__.py`` defines ``GAME``, a `cardgym.core.contract.game.GameSpec` (normally
``GAME = GameSpec.from_package(__name__, title=..., gym_name=...)``; docs/api.md, "Adding a game").
Games come from three places, in this order (the first to claim a name keeps it):

1. **built in**: every subpackage of ``cardgym.games`` (``_shared`` and other ``_``-names skipped);
2. **entry points** of the group ``cardgym.games`` (`ENTRY_POINT_GROUP`): a third-party distribution
   adds a game without touching cardgym, e.g. in its ``pyproject.toml``::

       [project.entry-points."cardgym.games"]
       crazy_eights = "my_games.crazy_eights"        # or "my_games.crazy_eights:GAME"

3. **the** ``CARDGYM_GAMES`` **environment variable** (`PATH_VARIABLE`), read at ``import cardgym``:
   entries separated by ``os.pathsep``, each a module path (``pkg.game`` or ``pkg.game:GAME``) or a
   folder, every package of which is a game (the folder is put on ``sys.path``). `add` does the same
   at run time; the test suite adds ``tests/games`` that way.

Discovery is cheap: it imports no game. A game's name, title, PettingZoo module and Gymnasium id are
read from the literal keywords of the ``GAME = ...`` call in its ``__init__.py`` (the package is
imported instead only when they are not literals), so ``import cardgym`` compiles nothing and loads
no kernels; `get` imports a game on first use and checks its spec agrees.

From this list come `cardgym.GAMES`, `cardgym.get_game`, the Gymnasium ids (with the compiled
``vector_entry_point``), the PettingZoo ids, the modules ``cardgym.<game>_v0`` (`env_module`, served
for every game, built in or not, by a finder on ``sys.meta_path``), the compile notice's titles, the
command-line game choices and the test parametrisation.
"""

from __future__ import annotations

import ast
import importlib
import importlib.machinery
import importlib.util
import os
import pkgutil
import sys
import warnings
from pathlib import Path
from typing import NamedTuple

ENTRY_POINT_GROUP = "cardgym.games"
PATH_VARIABLE = "CARDGYM_GAMES"
BUILTIN_PACKAGE = "cardgym.games"


class GameEntry(NamedTuple):
    """One discovered game (a named tuple: its first three fields are what ``cardgym.GAMES[name]`` held
    before the registry, so ``cardgym.GAMES[name][1]`` is still the Gymnasium id)."""

    module: str  # the PettingZoo module, "cardgym.skyjo_v0"
    gym_id: str  # "cardgym/Skyjo-v0"
    gym_class: str  # "SkyjoEnv"
    name: str  # "skyjo"
    title: str  # "Skyjo"
    package: str  # the game package, "cardgym.games.skyjo"
    attr: str  # the GameSpec's name in that package, "GAME"
    origin: str  # "builtin", "entry point <dist>" or "CARDGYM_GAMES"/"add()"

    @property
    def env_name(self) -> str:
        """The PettingZoo module's own name, ``"skyjo_v0"``."""
        return self.module.rsplit(".", 1)[1]

    @property
    def pettingzoo_id(self) -> str:
        """``"cardgym/skyjo-v0"``."""
        base, _, version = self.env_name.rpartition("_v")  # only the version's "_v": a name may hold one
        return f"cardgym/{base}-v{version}"

    @property
    def builtin(self) -> bool:
        return self.origin == "builtin"


#: name -> GameEntry, in discovery order (this dict is ``cardgym.GAMES``)
GAMES: dict = {}
_SPECS: dict = {}
_BROKEN: dict = {}  # name -> the one-line error of a game that failed to load
_WARNED: set = set()  # broken games `loadable` has warned of
_ENV_MODULES: dict = {}  # "skyjo_v0" -> game name
_discovered = False
_seen_paths: set = set()  # CARDGYM_GAMES values already read


# ------------------------------------------------------------------------------------------- reading
def _literal_meta(init_file: str, attr: str) -> dict | None:
    """The literal keywords of ``<attr> = GameSpec(...)`` / ``GameSpec.from_package(__name__, ...)`` in a
    package's ``__init__.py``, or None when there is no such call with literal keywords."""
    try:
        tree = ast.parse(Path(init_file).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)):
            continue
        if not any(isinstance(t, ast.Name) and t.id == attr for t in node.targets):
            continue
        func = node.value.func
        kind = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        meta = {"_from_package": kind == "from_package"}
        for kw in node.value.keywords:
            if kw.arg in ("name", "title", "env_name", "gym_id", "gym_name", "version"):
                try:
                    meta[kw.arg] = ast.literal_eval(kw.value)
                except ValueError:
                    return None
        return meta
    return None


def _entry_from_meta(package: str, attr: str, meta: dict, origin: str) -> GameEntry | None:
    if meta.get("_from_package"):
        name = package.rsplit(".", 1)[-1]
        if "title" not in meta or "gym_name" not in meta:
            return None
        version = int(meta.get("version", 0))
        env_name, gym_id = f"{name}_v{version}", f"cardgym/{meta['gym_name']}-v{version}"
    else:
        if not all(k in meta for k in ("name", "title", "env_name", "gym_id")):
            return None
        name, env_name, gym_id = meta["name"], meta["env_name"], meta["gym_id"]
    gym_class = gym_id.split("/", 1)[1].rsplit("-v", 1)[0] + "Env"
    return GameEntry(f"cardgym.{env_name}", gym_id, gym_class, name, meta["title"], package, attr, origin)


def _spec_of(package: str, attr: str):
    """The ``GameSpec`` named ``attr`` in the game package ``package`` (imported)."""
    spec = getattr(importlib.import_module(package), attr, None)
    from cardgym.core.contract.game import GameSpec

    if not isinstance(spec, GameSpec):
        raise TypeError(f"game package {package} must define {attr} = GameSpec.from_package(__name__, ...), "
                        f"got {type(spec).__name__}")
    return spec


def _entry_from_spec(package: str, attr: str, origin: str) -> GameEntry:
    spec = _spec_of(package, attr)
    return GameEntry(f"cardgym.{spec.env_name}", spec.gym_id, spec.gym_class, spec.name, spec.title, package,
                     attr, origin)


def read_entry(target: str, origin: str) -> GameEntry:
    """The `GameEntry` of ``target`` (``"pkg.game"`` or ``"pkg.game:ATTR"``), read without importing the
    game when its ``__init__.py`` spells the spec's names as literals."""
    if not isinstance(target, str) or not target.strip():
        raise ValueError(f"a game is named by its module path ('pkg.game' or 'pkg.game:GAME'), got {target!r}")
    package, _, attr = target.strip().partition(":")
    attr = attr or "GAME"
    try:
        found = importlib.util.find_spec(package)
    except (ImportError, ValueError) as exc:
        raise ValueError(f"game module {package!r} cannot be found: {exc}") from None
    if found is None:
        raise ValueError(f"game module {package!r} cannot be found (is it installed or on sys.path?)")
    entry = None
    if found.origin and found.origin.endswith(".py"):
        meta = _literal_meta(found.origin, attr)
        if meta is not None:
            entry = _entry_from_meta(package, attr, meta, origin)
    return entry or _entry_from_spec(package, attr, origin)


# ----------------------------------------------------------------------------------------- discovery
def _builtin_targets() -> list:
    pkg = importlib.import_module(BUILTIN_PACKAGE)
    return [f"{BUILTIN_PACKAGE}.{m.name}" for m in pkgutil.iter_modules(pkg.__path__)
            if m.ispkg and not m.name.startswith("_")]


def _group_may_be_declared() -> bool:
    """Whether an installed distribution may declare the `ENTRY_POINT_GROUP`: a look at the
    ``entry_points.txt`` of the ``*.dist-info``/``*.egg-info`` folders on ``sys.path`` (where
    importlib.metadata finds them), which spares ``import cardgym`` the import of importlib.metadata
    (30-50 ms) when none names the group. A zip or other non-folder entry answers yes."""
    needle = f"[{ENTRY_POINT_GROUP}]"
    for folder in sys.path:
        try:
            entries = os.scandir(folder or ".")
        except NotADirectoryError:
            return True
        except OSError:
            continue
        with entries:
            for d in entries:
                if not d.name.endswith((".dist-info", ".egg-info")):
                    continue
                try:
                    with open(os.path.join(d.path, "entry_points.txt"), encoding="utf-8") as f:
                        if needle in f.read():
                            return True
                except OSError:
                    pass
    return False


def _entry_point_targets() -> list:
    if not _group_may_be_declared():
        return []
    from importlib.metadata import entry_points

    out = []
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        dist = getattr(getattr(ep, "dist", None), "name", None) or "?"
        out.append((ep.value, f"entry point {ep.name} ({dist})"))
    return out


def _path_targets(value: str, origin: str) -> list:
    """Targets of a ``CARDGYM_GAMES``-style value: module paths, or folders of game packages."""
    out = []
    for item in (x.strip() for x in value.split(os.pathsep)):
        if not item:
            continue
        folder = Path(item)
        if ":" not in item and folder.is_dir():
            path = str(folder.resolve())
            if path not in sys.path:
                sys.path.append(path)
            out += [(m.name, f"{origin} {item}") for m in pkgutil.iter_modules([path])
                    if m.ispkg and not m.name.startswith("_")]
        else:
            out.append((item, origin))
    return out


def _add(target: str, origin: str, strict: bool) -> GameEntry | None:
    try:
        entry = read_entry(target, origin)
        if entry.name in GAMES:
            if GAMES[entry.name].package == entry.package:
                return GAMES[entry.name]
            raise ValueError(f"game name {entry.name!r} of {entry.package} ({origin}) is already taken by "
                             f"{GAMES[entry.name].package} ({GAMES[entry.name].origin})")
    except Exception as exc:
        if strict:
            raise
        warnings.warn(f"cardgym: game {target!r} ({origin}) skipped: {exc}", RuntimeWarning, stacklevel=3)
        return None
    GAMES[entry.name] = entry
    _ENV_MODULES[entry.env_name] = entry.name
    _register_ids(entry)
    _register_title(entry)
    return entry


def discover() -> dict:
    """Find every game and return `GAMES`: the built-in ones and the entry points once per process, then
    the entries of ``CARDGYM_GAMES`` not seen yet (so calling it again after changing the variable adds
    its new games). A broken third-party game is skipped with a ``RuntimeWarning`` naming it; a broken
    built-in one raises."""
    global _discovered
    if not _discovered:
        _discovered = True
        _install_finder()
        for target in _builtin_targets():
            _add(target, "builtin", strict=True)
        try:
            eps = _entry_point_targets()
        except Exception as exc:  # pragma: no cover - a broken installed distribution
            warnings.warn(f"cardgym: entry points of group {ENTRY_POINT_GROUP!r} unreadable: {exc}", RuntimeWarning,
                          stacklevel=2)
            eps = []
        for target, origin in eps:
            _add(target, origin, strict=False)
    value = os.environ.get(PATH_VARIABLE, "")
    if value and value not in _seen_paths:
        _seen_paths.add(value)
        for target, origin in _path_targets(value, PATH_VARIABLE):
            _add(target, origin, strict=False)
    return GAMES


def add(target) -> list:
    """Add games at run time: ``target`` is a module path (``"pkg.game"``, ``"pkg.game:GAME"``) or a
    folder (a ``pathlib.Path`` or a path string naming a directory) whose packages are games, the same
    entries as ``CARDGYM_GAMES``. Registers their Gymnasium and PettingZoo ids and their
    ``cardgym.<game>_v0`` modules. Adding a game already registered from the same package does nothing;
    errors (no such module, no ``GAME``, a name already taken) raise ``ValueError``/``TypeError``.
    Returns the entries added or found."""
    discover()
    if isinstance(target, Path):
        target = str(target)
    if not isinstance(target, str):
        raise TypeError(f"add() takes a module path or a folder, got {type(target).__name__}")
    targets = _path_targets(target, "add()")
    if not targets:
        raise ValueError(f"{target!r} names no game: not a module path, nor a folder holding game packages")
    return [_add(t, origin, strict=True) for t, origin in targets]


def remove(name: str) -> GameEntry:
    """Undo `add` (or a ``CARDGYM_GAMES`` entry) for the game ``name``: it leaves `GAMES`, its Gymnasium
    and PettingZoo ids and its ``cardgym.<game>_v0`` module are unregistered, so the name can be added
    again (from an edited package, say). Built-in games cannot be removed (``ValueError``); envs already
    made keep working. Returns the removed entry."""
    e = entry(name)
    if e.builtin:
        raise ValueError(f"game {name!r} is built into cardgym and cannot be removed; removable: "
                         f"{[n for n, g in GAMES.items() if not g.builtin]}")
    del GAMES[name]
    _SPECS.pop(name, None)
    _BROKEN.pop(name, None)
    _WARNED.discard(name)
    _ENV_MODULES.pop(e.env_name, None)
    sys.modules.pop(e.module, None)
    parent = sys.modules.get("cardgym")
    if parent is not None and e.env_name in vars(parent):  # set by the import of the submodule
        delattr(parent, e.env_name)
    import gymnasium

    gymnasium.registry.pop(e.gym_id, None)
    try:  # where pettingzoo.register (`_register_ids`) put the id
        from pettingzoo.env_registry.registration import aec_registry
    except ImportError:  # pragma: no cover - a PettingZoo without a registry
        pass
    else:
        aec_registry.pop(e.pettingzoo_id, None)
    return e


# ------------------------------------------------------------------------------------------- lookups
def names(builtin: bool | None = None) -> list:
    """Game names in discovery order; ``builtin=True`` only the games shipped in ``cardgym.games``,
    ``False`` only the added ones."""
    discover()
    return [n for n, e in GAMES.items() if builtin is None or e.builtin == builtin]


def entry(name: str) -> GameEntry:
    discover()
    if not isinstance(name, str) or name not in GAMES:
        raise ValueError(f"unknown game {name!r}; games: {sorted(GAMES)}")
    return GAMES[name]


class BrokenGame(ValueError):
    """A discovered game that cannot be loaded (its package fails at import, its ``GAME`` is not a
    `GameSpec` or disagrees with its ``__init__.py``): raised by `get` with one line naming the game,
    its package, where it came from and the error (the original chained). A ``ValueError``, like an
    unknown game: the command or table that asked for it refuses it; the other games work."""


def _load(e: GameEntry):
    spec = _spec_of(e.package, e.attr)
    got = (f"cardgym.{spec.env_name}", spec.gym_id, spec.name)
    if got != (e.module, e.gym_id, e.name):
        raise ValueError(f"game package {e.package}: its {e.attr} says {got}, its __init__.py reads as "
                         f"{(e.module, e.gym_id, e.name)} (write the names as literals)")
    return spec


def get(name: str):
    """The `cardgym.core.contract.game.GameSpec` of a game (imported on first use). A game that fails to
    load raises `BrokenGame` (one line: game, package, origin, error), every time it is asked for, and
    is listed by `broken`; a built-in game's failure is raised as it is (a bug of cardgym)."""
    e = entry(name)
    spec = _SPECS.get(name)
    if spec is None:
        if name in _BROKEN:
            raise BrokenGame(_BROKEN[name])
        if e.builtin:
            spec = _load(e)
        else:
            try:
                spec = _load(e)
            except Exception as exc:
                error = " ".join(f"{type(exc).__name__}: {exc}".split())  # one line
                _BROKEN[name] = f"game {name!r} (package {e.package}, {e.origin}) cannot be loaded: {error}"
                raise BrokenGame(_BROKEN[name]) from exc
        _SPECS[name] = spec
    return spec


def loadable(names_=None) -> list:
    """The games of ``names_`` (default: every game, in discovery order) that load, each imported (so
    this costs what loading them costs); the others are left out with a ``RuntimeWarning`` (one line:
    game, package, origin, error) and listed by `broken`. What a list of
    games to offer (a help page, the web table's catalogue, the MCP server's games) iterates."""
    out = []
    for name in names() if names_ is None else names_:
        try:
            get(name)
        except BrokenGame as exc:
            if name not in _WARNED:  # once per game, one line on stderr: "cardgym:0: RuntimeWarning: game ..."
                _WARNED.add(name)
                warnings.warn_explicit(str(exc), RuntimeWarning, "cardgym", 0, module=__name__)
            continue
        out.append(name)
    return out


def broken() -> dict:
    """``{name: one line}`` of the games found broken so far (by `get` or `loadable`): the line names the
    game, its package, where it came from and the error. Games never asked for are not tried."""
    return dict(_BROKEN)


def page(name: str) -> str:
    """The game's documentation page, Markdown: ``cardgym/pages/<name>.md`` (a copy of
    ``docs/<name>.md``) for a built-in game that has one, else the game package's docstring."""
    e = entry(name)
    if e.builtin:
        from importlib import resources

        shipped = resources.files("cardgym").joinpath("pages", f"{name}.md")
        if shipped.is_file():
            return shipped.read_text(encoding="utf-8")
    return importlib.import_module(e.package).__doc__ or f"# {e.title}\n"


# ------------------------------------------------------------------------------ the *_v0 modules
def env_module(namespace: dict) -> None:
    """Fill the namespace of the module ``cardgym.<game>_v0`` (``namespace["__name__"]``) with the
    game's entry points: ``GAME``, ``raw_env``, ``env``, the Gymnasium class (``SkyjoEnv``) and
    ``make_env`` (the Gymnasium entry point) and ``make_vec``; its docstring becomes the game's page (`page`), the PettingZoo way: ``help()`` shows
    the rules, options, spaces and actions."""
    from cardgym.core.envs.entry_points import game_entry_points, vector_entry_point

    module = namespace["__name__"]
    discover()
    name = _ENV_MODULES.get(module.rsplit(".", 1)[1])
    if name is None:
        raise ImportError(f"no game provides {module}; games: {sorted(GAMES)}")
    game = get(name)
    raw_env, env, gym_env = game_entry_points(game, module, game.gym_class)
    from cardgym.core.envs.gym_wrappers import gym_entry_point
    namespace.update({
        "GAME": game,
        "raw_env": raw_env,
        "env": env,
        game.gym_class: gym_env,
        "make_env": gym_entry_point(gym_env, module),
        "make_vec": vector_entry_point(game, module),
        "__doc__": page(name),
        "__all__": ["GAME", "raw_env", "env", game.gym_class, "make_env", "make_vec"],
    })


class _EnvModuleFinder:
    """Serves ``cardgym.<game>_v0`` for a game without a module file (one added by entry point,
    ``CARDGYM_GAMES`` or `add`), so ``import cardgym.<game>_v0`` and the Gymnasium entry points work
    for every game alike."""

    def find_spec(self, fullname, path=None, target=None):
        prefix, _, leaf = fullname.rpartition(".")
        if prefix != "cardgym" or leaf not in _ENV_MODULES:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    # the Loader protocol (importlib.abc is not imported: it costs ``import cardgym`` 40 ms)
    def create_module(self, spec):
        return None

    def exec_module(self, module):
        env_module(module.__dict__)


_FINDER = _EnvModuleFinder()


def _install_finder() -> None:
    if _FINDER not in sys.meta_path:
        sys.meta_path.append(_FINDER)  # after the path finder: the module files of built-in games win


# ------------------------------------------------------------------------------------- registration
def _register_ids(e: GameEntry) -> None:
    """The game's Gymnasium id (with the compiled vector entry point) and PettingZoo id."""
    import gymnasium

    if e.gym_id not in gymnasium.registry:
        # gymnasium.make_vec(gym_id, num_envs=N) picks the vector entry point (one compiled batch,
        # cardgym.make_vec) unless vectorization_mode="sync"/"async" asks for N Python envs
        # the entry point builds Gymnasium's two default wrappers itself, as subclasses that copy the whole
        # stack (core/envs/gym_wrappers.py); so gymnasium.make must not add its own
        gymnasium.register(id=e.gym_id, entry_point=f"{e.module}:make_env",
                           vector_entry_point=f"{e.module}:make_vec", order_enforce=False,
                           disable_env_checker=True)
    try:
        import pettingzoo
    except ImportError:  # pragma: no cover - pettingzoo is a core dependency
        return
    if hasattr(pettingzoo, "register"):
        try:
            pettingzoo.register("aec", e.pettingzoo_id, entry_point=f"{e.module}:env")
        except Exception:  # already registered (re-import)
            pass


def _register_title(e: GameEntry) -> None:
    from cardgym.core.compiled import cache

    cache.name_game(e.name, e.title, e.package)
