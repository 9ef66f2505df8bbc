"""Every place where cardgym reaches into numba's internals, in one module that knows which numba it was
written for.

cardgym uses numba's public API (``njit(cache=True)``, ``Dispatcher.compile``, ``numba.core.event``)
everywhere but here. Three hooks need numba's private parts:

1. `plain_call_types`: ``Dispatcher.get_call_template`` is wrapped so that a cardgym kernel called from
   another kernel compiles once per argument *kinds* (see its docstring);
2. `insert_locator`: a cache locator class is inserted into ``CacheImpl._locator_classes`` (numba's list
   of where caches may live) that lays cardgym's kernels out by content under ``NUMBA_CACHE_DIR`` and
   under the per-user or temporary folder of a read-only install (`cardgym.core.compiled.cache`);
3. `guard_damaged_entries`: ``Cache.load_overload`` and ``Cache.save_overload`` are wrapped so that a
   damaged cache entry of a cardgym kernel (a zero-length, truncated or garbled ``.nbi`` index or
   ``.nbc`` data file: a full disk, a torn copy of a cache folder; an ``.nbc`` copied over from another
   function or game; a folder where an entry file belongs) is dropped and recompiled with one line on
   stderr, instead of failing every later process with numba's ``EOFError: Ran out of input`` or running
   another function's code; and a read-only cache (baked into an image) is read, its misses kept in
   memory instead of failing the compile.

The hooks were written for and tested with the numba versions in `TESTED` (``Dispatcher``,
``CacheImpl``/``_CacheImpl``, ``_CacheLocator``, ``IndexDataCacheFile``). On another version each hook
still checks that what it patches exists; `check_version` warns once, naming the version met and the
versions known, and a hook whose target is gone warns that it is off (cardgym then still works: the
kernels compile more often, a read-only install caches in numba's own user folder, a moved copy of
the package does not find its kernels in ``NUMBA_CACHE_DIR``, a damaged entry stops the process as in
plain numba).
"""

from __future__ import annotations

import os
import shutil
import sys
import warnings

import numba

#: ``(lowest, highest)`` numba ``(major, minor)`` these hooks were written for and tested with
TESTED = ((0, 59), (0, 68))

_warned: set = set()


def numba_version() -> tuple:
    """numba's ``(major, minor)``."""
    parts = numba.__version__.split(".")
    return int(parts[0]), int("".join(ch for ch in parts[1] if ch.isdigit()) or 0)


def check_version(version: tuple | None = None) -> bool:
    """Whether numba's version is one the hooks were written for; else a ``RuntimeWarning`` (once per
    process) naming the version met and `TESTED`."""
    version = numba_version() if version is None else version
    lo, hi = TESTED
    if lo <= version <= hi:
        return True
    _warn("version", f"cardgym: numba {numba.__version__} is outside the versions its numba hooks were "
                     f"written for ({lo[0]}.{lo[1]} to {hi[0]}.{hi[1]}, cardgym/core/compiled/numba_hooks.py); each hook "
                     "checks its target and says so if it is gone")
    return False


def _warn(key: str, message: str) -> None:
    if key in _warned:
        return
    _warned.add(key)
    warnings.warn(message, RuntimeWarning, stacklevel=3)


def _hook_off(name: str, exc) -> None:
    _warn(name, f"cardgym: numba hook {name!r} is off: numba {numba.__version__} lacks what it patches ({exc}); "
                "cardgym works without it (see cardgym/core/compiled/numba_hooks.py)")


# ---------------------------------------------------------------------------------- 1. call types
_PLAIN = False


def _plain(t):
    """The argument type a cardgym kernel is compiled for when another kernel calls it: literals as
    their plain type, signed integers narrower than 64 bits as int64."""
    from numba.core import types

    t = types.unliteral(t)
    if isinstance(t, types.Integer) and t.signed and t.bitwidth < 64:
        return types.int64
    return t


def plain_call_types() -> bool:
    """Compile a cardgym kernel called from another kernel once per argument *kinds*, not once per
    literal value or integer width of its arguments.

    numba types a call between compiled functions with the caller's exact argument types: a constant
    argument becomes a literal type (``f(s, 0)`` and ``f(s, 5)`` compile ``f`` twice) and an int8
    field, an int32 and an int64 each get their own compile. Kernels take small integers (seats, card
    codes, counts) from int8/int16 record fields and from int64 loop variables, so most helpers were
    compiled two or three times. Numba widens small integers to int64 for arithmetic anyway, so the
    widened compile computes the same values. This hooks ``Dispatcher.get_call_template`` (numba's
    typing of such calls) for dispatchers defined in cardgym modules only; other numba code is left
    as it is. Returns whether the hook is in place."""
    global _PLAIN
    if _PLAIN:
        return True
    try:
        from numba.core.dispatcher import Dispatcher

        original = Dispatcher.get_call_template
    except (ImportError, AttributeError) as exc:
        _hook_off("plain_call_types", exc)
        return False

    def get_call_template(self, args, kws):
        module = getattr(getattr(self, "py_func", None), "__module__", None) or ""
        if module.startswith("cardgym."):
            args = tuple(_plain(a) for a in args)
        return original(self, args, kws)

    get_call_template.__wrapped__ = original
    Dispatcher.get_call_template = get_call_template
    _PLAIN = True
    return True


# ---------------------------------------------------------------------------------- 2. the locator
def cache_impl():
    """numba's cache implementation class (``CacheImpl``; ``_CacheImpl`` before numba 0.62)."""
    from numba.core import caching

    return getattr(caching, "CacheImpl", None) or caching._CacheImpl


def locator_base():
    """``(_SourceFileBackedLocatorMixin, _CacheLocator)``: what a numba cache locator derives from."""
    from numba.core.caching import _CacheLocator, _SourceFileBackedLocatorMixin

    return _SourceFileBackedLocatorMixin, _CacheLocator


def insert_locator(make_locator) -> bool:
    """Put the locator class ``make_locator()`` builds first in numba's list of cache locators (before the
    ``NUMBA_CACHE_DIR`` one: it answers for cardgym's files there too), once. Returns whether it is in
    place."""
    try:
        loc = make_locator()
        classes = cache_impl()._locator_classes
    except (ImportError, AttributeError) as exc:
        _hook_off("insert_locator", exc)
        return False
    if not any(c.__name__ == loc.__name__ for c in classes):
        classes.insert(0, loc)
    return True


# ------------------------------------------------------------------------------- 3. damaged entries
_GUARDED = False


def entry_files(cache) -> list:
    """The files of one function's cache entry: its ``.nbi`` index and every ``.nbc`` data file beside
    it (``<function>-<line>.pyXY.nbi``, ``<function>-<line>.pyXY.<k>.nbc``)."""
    cf = cache._cache_file
    index = cf._index_path
    folder, base = os.path.split(index)
    stem = base[: -len(".nbi")]
    try:
        names = os.listdir(folder)
    except OSError:
        return [index]
    return [index] + [os.path.join(folder, n) for n in names
                      if n.startswith(stem + ".") and n.endswith(".nbc")]


def _drop(files) -> None:
    """Delete a cache entry's files; a folder where a file belongs goes with everything in it."""
    for path in files:
        try:
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            else:
                os.unlink(path)
        except OSError:
            pass


def foreign_entry(cres, py_func, sig) -> str | None:
    """Why the compiled result ``cres`` loaded for ``py_func`` at ``sig`` is not its own (an ``.nbc``
    copied over from another function, another game or another signature of the same function: numba
    would run that code), or None when it is. Compares the function's module and qualified name and the
    argument types recorded in the result with what was asked for."""
    fndesc = getattr(cres, "fndesc", None)
    if fndesc is None:  # pragma: no cover - numba changed
        return None
    want = (getattr(py_func, "__module__", None), getattr(py_func, "__qualname__", None))
    got = (getattr(fndesc, "modname", want[0]), getattr(fndesc, "qualname", want[1]))
    if got != want:
        return f"it holds the code of {got[0]}.{got[1]}"
    try:
        from numba.core import sigutils

        args = tuple(sigutils.normalize_signature(sig)[0])
        have = tuple(cres.signature.args)
    except Exception:  # pragma: no cover - numba changed
        return None
    if have != args:
        return f"it holds the code for the arguments {have}, not {args}"
    return None


_unsaved: set = set()


def guard_damaged_entries(owns) -> bool:
    """Wrap ``Cache.load_overload`` and ``Cache.save_overload`` for the functions ``owns(py_func)``
    accepts, so that a damaged cache entry heals:

    - an entry numba cannot read (any exception while loading it: ``EOFError``,
      ``pickle.UnpicklingError``, a ``ValueError`` from a garbled stream, an ``.nbi`` that is a folder...)
      or that holds another function's code (`foreign_entry`: an ``.nbc`` swapped between games, between
      two functions or two signatures) is deleted (a folder with its content), named in one line on
      stderr, and reported as a cache miss: numba then compiles the function and writes a fresh entry;
    - a save that fails because a folder stands where an entry file goes (an ``.nbc`` replaced by a
      folder) removes the folder, says so in one line and saves again;
    - a save that fails otherwise (a read-only cache, e.g. one baked into an image) keeps the compiled
      code in memory, with one line on stderr per cache folder, instead of failing the compile.

    Other functions keep numba's behaviour. Returns whether the hooks are in place."""
    global _GUARDED
    if _GUARDED:
        return True
    try:
        from numba.core.caching import Cache

        original = Cache.load_overload
        original_save = Cache.save_overload
    except (ImportError, AttributeError) as exc:
        _hook_off("guard_damaged_entries", exc)
        return False

    Cache.load_overload = _guarded_load(original, owns)
    Cache.save_overload = _guarded_save(original_save, owns)
    _GUARDED = True
    return True


def _owned(cache, owns) -> bool:
    py_func = getattr(cache, "_py_func", None)
    return py_func is not None and owns(py_func)


def _guarded_load(original, owns):
    """``Cache.load_overload`` that drops an unreadable or foreign entry of an owned function (a miss)."""

    def load_overload(self, sig, target_context):
        if not _owned(self, owns):
            return original(self, sig, target_context)
        try:
            data = original(self, sig, target_context)
            problem = None if data is None else foreign_entry(data, self._py_func, sig)
            if problem is None:
                return data
            why = f"ValueError: {problem}"
        except Exception as exc:
            why = f"{type(exc).__name__}: {exc}"
        files = entry_files(self)
        _drop(files)
        print(f"cardgym: damaged kernel cache entry {files[0]} ({why}); dropped, recompiling", file=sys.stderr,
              flush=True)
        return None

    load_overload.__wrapped__ = original
    return load_overload


def _guarded_save(original, owns):
    """``Cache.save_overload`` that clears a folder standing where an owned function's entry file goes,
    and keeps the code in memory (one line per cache folder) when the cache cannot be written."""

    def save_overload(self, sig, data):
        if not _owned(self, owns):
            return original(self, sig, data)
        try:
            return original(self, sig, data)
        except OSError as exc:
            error = exc
        folders = [f for f in entry_files(self) if os.path.isdir(f)]
        if folders:  # a folder where an entry file goes: removed, then saved again
            _drop(folders)
            print(f"cardgym: damaged kernel cache entry {folders[0]} (a folder); dropped, saving again",
                  file=sys.stderr, flush=True)
            try:
                return original(self, sig, data)
            except OSError as exc:
                error = exc
        _say_unsaved(os.path.dirname(self._cache_file._index_path), error)
        return None

    save_overload.__wrapped__ = original
    return save_overload


def _say_unsaved(where: str, exc: OSError) -> None:
    if where not in _unsaved:
        _unsaved.add(where)
        print(f"cardgym: the kernel cache {where} is not writable ({type(exc).__name__}: {exc}); kernels "
              "compiled now are kept in memory only (run cardgym warmup where the cache is writable)",
              file=sys.stderr, flush=True)
