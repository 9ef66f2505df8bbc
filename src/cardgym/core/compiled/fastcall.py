"""Direct calls into compiled kernels, skipping numba's per-call type dispatch, and the tagged ``njit`` of
template files bound once per game. (The hook that compiles a kernel called from another kernel once
per argument kinds lives with numba's other private hooks in `cardgym.core.compiled.numba_hooks`.)

A numba dispatcher types every argument on every call (about a microsecond per structured array),
which is most of the cost of one AEC step. The environment layers call each kernel with arguments of
fixed types, so they resolve the compiled entry point once, here, and call it directly.
"""

from __future__ import annotations

import numba


def entry(fn, *example_args):
    """The compiled entry point of dispatcher ``fn`` for the types of ``example_args`` (compiled or
    loaded from the cache now). Under ``NUMBA_DISABLE_JIT`` it is ``fn`` itself."""
    compile_ = getattr(fn, "compile", None)
    if compile_ is None:
        return fn
    return compile_(tuple(numba.typeof(a) for a in example_args))


def tagged_jit(tag: str, **options):
    """``numba.njit(cache=True, **options)`` for the functions of a template file bound several times
    (``core/compiled/bound.py`` per game and binding, ``kit/search_loop.py`` per game): a non-empty
    ``tag`` is appended to each function's qualified name, which names numba's cache entries, so that
    every binding has its own (two games with one record dtype would otherwise share machine code)."""

    def deco(fn):
        if tag:
            fn.__qualname__ = f"{fn.__name__}__{tag}"
        return numba.njit(cache=True, **options)(fn)

    return deco
