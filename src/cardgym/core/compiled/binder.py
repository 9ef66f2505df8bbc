"""The binder: a game's kernels bound into the compiled template ``core/compiled/bound.py``.

`compiled` is what `cardgym.core.contract.game.GameSpec.compiled` returns: one module per ``(game, bot, obs,
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
import threading
from pathlib import Path

#: what the template's dispatch holds (``BOT0..BOT3``, ``OBS0..OBS3`` in ``core/compiled/bound.py``)
MAX_BOTS = 4
MAX_FLAT_ENCODERS = 4


def compiled(game, bot: int | None = None, obs: int | None = None, bots: tuple | None = None):
    """The binding of ``game`` (see `cardgym.core.contract.game.GameSpec.compiled` for the arguments)."""
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


#: module name -> every template module `load_template` made (each loaded once per process)
_LOADED: dict = {}


def load_template(template: Path, game, kind: str, variant: str = "", values=None,
                  aliases: dict | None = None, *, name: str | None = None, package: str | None = None):
    """The template file ``template`` (``core/compiled/bound.py``, ``core/contract/worlds_loop.py``, ``kit/search_loop.py``)
    loaded as the game's own module, once per process: what every binding of a game goes through.

    ``game`` is a `GameSpec` (or a game's name, with ``package`` its package). The module is named
    ``cardgym.games.<game>._<kind>[_<variant>]`` (``name`` overrides it) and registered in ``sys.modules``;
    its ``TAG``, read by the template before it defines anything, is `binding_tag` plus ``_<variant>``:
    numba names a cache entry by the template's file and the function's qualified name (which ``TAG``
    suffixes, `cardgym.core.compiled.fastcall.tagged_jit`) and keys it by signature only, so without the game in
    it two games with one record dtype would share entries (and each other's kernels). After the file
    runs, ``values`` (a dict, or a function returning one, called only when the module is loaded)
    are set as its globals and each ``aliases`` entry points a name at another of its
    globals (``{"bot": "bot_fixed"}``), all before anything compiles (numba binds globals when it
    compiles). The compiled functions the template defines report numba's typing errors naming the game,
    its file and function (`typing_errors_named`)."""
    game_name = game if isinstance(game, str) else game.name
    if package is None:
        package = "" if isinstance(game, str) else game.package
    if name is None:
        name = f"cardgym.games.{game_name}._{kind}" + (f"_{variant}" if variant else "")
    mod = _LOADED.get(name)
    if mod is not None:
        return mod
    if callable(values):
        values = values()
    spec = importlib.util.spec_from_file_location(name, template)
    mod = importlib.util.module_from_spec(spec)
    mod.TAG = binding_tag(game_name, package) + (f"_{variant}" if variant else "")
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    for key, value in (values or {}).items():
        setattr(mod, key, value)
    for key, target in (aliases or {}).items():
        setattr(mod, key, getattr(mod, target))
    typing_errors_named(mod, game_name, package)
    _LOADED[name] = mod
    return mod


def binding_tag(name: str, package: str) -> str:
    """What names a game's bindings of a shared template (``core/compiled/bound.py``, the search loop) in the
    kernel cache: the game's name, and for a game outside cardgym a hash of its package's sources
    (`cardgym.core.compiled.cache.source_tag`). numba checks only the template's own file, so without the hash
    an edited plugin game would load the machine code of its old rules. (A game inside cardgym needs no
    hash: any edit of cardgym's kernel files drops its whole cache, `cardgym.core.compiled.cache.refresh`.)"""
    from cardgym.core.compiled.cache import source_tag

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
    variant = (("" if bot is None else f"b{bot}") + ("" if subset is None else "B" + "".join(map(str, subset)))
               + ("" if obs is None else f"o{obs if obs >= 0 else 'n'}"))
    values = {"BOT_SLOTS": {k: k for k in range(len(bots))}}
    aliases = {}
    if bot is not None:
        bots = [bots[bot]]
        aliases["bot"] = "bot_fixed"
        values["BOT_SLOTS"] = {k: k for k in range(len(bots))}
    if subset is not None:
        bots = [bots[k] for k in subset]
        values["BOT_SLOTS"] = {k: slot for slot, k in enumerate(subset)}
    if obs is not None:
        if obs >= 0:
            flats = [flats[obs]]
            aliases["observe"] = "observe_fixed"
        else:
            aliases["observe"] = "observe_none"
    values.update(RESET=game.reset, LEGAL=game.legal, APPLY=game.apply, STATE_VECTOR=game.state_vector)
    prefetch = _game_prefetch(game)
    if prefetch is not None:
        values["PREFETCH"] = prefetch
    else:
        aliases["PREFETCH"] = "prefetch_nothing"
    for k in range(MAX_BOTS):
        values[f"BOT{k}"] = bots[k] if k < len(bots) else bots[0]
        values[f"OBS{k}"] = flats[k] if k < len(flats) else flats[0]
    return load_template(_TEMPLATE, game, "bound", variant, values, aliases)


# ------------------------------------------------------------------------------ typing errors, named
class KernelTypingError(TypeError):
    """A game's kernels failed numba's type inference when a binding compiled them: the message names the
    game, the game's file, line and function where numba failed, and the unknown field or name; numba's
    own error (hundreds of lines) is chained as ``__cause__``."""


_compiling = threading.local()

#: numba's ``During: typing of <what> at <path> (<line>)`` lines, the failing kernel's first (innermost),
#: and its shorter ``File "<path>", line <n>:`` lines
_TYPING_AT = re.compile(r"During: typing of [^\n]* at (\S[^\n]*?) \((\d+)\)\s*$", re.M)
_FILE_LINE = re.compile(r'File "([^"]+)", line (\d+)')
#: what numba names as missing in a typing error's message: a record field, an attribute, a global
_MISSING = (
    re.compile(r"Unknown attribute '([^']+)'"),
    re.compile(r"Untyped global name '([^']+)'"),
    re.compile(r"NameError: name '([^']+)' is not defined"),
)


def _chain(exc):
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def _locate(exc) -> dict:
    """What numba's failing type inference left in the traceback of ``exc`` (and the errors it chains):
    ``where`` (file, line, function of the innermost kernel being typed) and, for an unknown field of a
    record, ``field`` and ``fields`` (the record's)."""
    found: dict = {}
    for e in _chain(exc):
        tb = e.__traceback__
        while tb is not None:
            local = tb.tb_frame.f_locals
            me, infer = local.get("self"), local.get("typeinfer")
            loc = getattr(me, "loc", None)
            func_id = getattr(infer, "func_id", None)
            if loc is not None and func_id is not None and getattr(loc, "line", None):
                found["where"] = (str(loc.filename), int(loc.line), func_id.func_name)
            fields = getattr(me, "fields", None)
            if isinstance(fields, dict) and type(me).__name__ == "Record" and isinstance(e, KeyError):
                found["field"], found["fields"] = local.get("key", e.args[0] if e.args else None), list(fields)
            tb = tb.tb_next
        if found:
            return found
    return found


def _function_at(path: str, line: int) -> str | None:
    """The name of the ``def`` around ``line`` of ``path``."""
    try:
        text = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    for k in range(min(line, len(text)) - 1, -1, -1):
        m = re.match(r"\s*def\s+(\w+)", text[k])
        if m:
            return m.group(1)
    return None


def _describe(exc, game: str, package: str, entry: str) -> str:
    """The short report of numba's failure ``exc`` to type ``game``'s kernels for the entry ``entry``."""
    found = _locate(exc)
    message = str(exc)
    where = found.get("where")
    if where is None:
        places = [(p, int(n)) for pattern in (_TYPING_AT, _FILE_LINE) for p, n in pattern.findall(message)
                  if not Path(p).name.startswith("<")]
        if places:  # numba prints the failing kernel first, then its callers
            where = (*places[0], _function_at(*places[0]))
    missing = found.get("field")
    if missing is None:
        for pattern in _MISSING:
            m = pattern.search(message)
            if m:
                missing = m.group(1)
                break
    parts = [f"game {game!r}: its kernels do not compile (numba could not type them while compiling {entry}())"]
    if where is not None:
        parts.append(f"in {where[0]}, line {where[1]}" + (f", function {where[2]}()" if where[2] else ""))
    if "fields" in found:
        parts.append(f"the record has no field {missing!r}; its fields: {', '.join(found['fields'])}")
    elif missing is not None:
        parts.append(f"unknown name {missing!r}")
    first = next((line.strip() for line in message.splitlines() if line.strip()), "")
    parts.append(f"numba: {type(exc).__name__}: {first[:300]}")
    if package:
        parts.append(f"(game package {package}; numba's whole error is chained above)")
    return ";\n  ".join(parts)


def typing_errors_named(mod, game: str, package: str) -> None:
    """Make the compiled functions that the template module ``mod`` defines report numba's typing errors
    (``numba.core.errors.TypingError``) as a `KernelTypingError` naming ``game``, the file, line and
    function of the failing kernel and the unknown name (numba's error chained). Only the outermost
    compile of a call reports (a binding's functions call each other), and only typing errors: numba's
    other errors pass through. Costs nothing once compiled (it wraps ``compile``, which a call reaches only
    for argument types not compiled yet)."""
    try:
        from numba.core.dispatcher import Dispatcher
        from numba.core.errors import TypingError
    except ImportError:  # pragma: no cover
        return
    for fn in list(vars(mod).values()):
        if not isinstance(fn, Dispatcher) or getattr(fn.py_func, "__module__", None) != mod.__name__:
            continue
        if "compile" in vars(fn):  # already wrapped (an alias of another name)
            continue
        fn.compile = _named_compile(fn.compile, fn.py_func.__name__, game, package, TypingError)


def _named_compile(compile_, entry: str, game: str, package: str, typing_error):
    def compile(sig):
        depth = getattr(_compiling, "depth", 0)
        _compiling.depth = depth + 1
        try:
            return compile_(sig)
        except Exception as e:
            # numba's typing errors, and what its type inference raises unwrapped (a KeyError for a
            # record field it does not have)
            if depth or not (isinstance(e, typing_error) or "where" in _locate(e)):
                raise
            raise KernelTypingError(_describe(e, game, package, entry)) from e
        finally:
            _compiling.depth = depth

    return compile
