"""Direct calls into compiled kernels, skipping numba's per-call type dispatch; and one compile per
kernel for calls between kernels.

A numba dispatcher types every argument on every call (about a microsecond per structured array),
which is most of the cost of one AEC step. The environment layers call each kernel with arguments of
fixed types, so they resolve the compiled entry point once, here, and call it directly.
"""

from __future__ import annotations

import numba

_PATCHED = False


def entry(fn, *example_args):
    """The compiled entry point of dispatcher ``fn`` for the types of ``example_args`` (compiled or
    loaded from the cache now). Under ``NUMBA_DISABLE_JIT`` it is ``fn`` itself."""
    compile_ = getattr(fn, "compile", None)
    if compile_ is None:
        return fn
    return compile_(tuple(numba.typeof(a) for a in example_args))


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
    global _PATCHED
    if _PATCHED:
        return True
    try:
        from numba.core.dispatcher import Dispatcher
    except ImportError:  # pragma: no cover
        return False
    original = getattr(Dispatcher, "get_call_template", None)
    if original is None:  # pragma: no cover - numba changed
        return False

    def get_call_template(self, args, kws):
        module = getattr(getattr(self, "py_func", None), "__module__", None) or ""
        if module.startswith("cardgym."):
            args = tuple(_plain(a) for a in args)
        return original(self, args, kws)

    get_call_template.__wrapped__ = original
    Dispatcher.get_call_template = get_call_template
    _PATCHED = True
    return True


def tagged_jit(tag: str, **options):
    """``numba.njit(cache=True, **options)`` for the functions of a template file bound several times
    (``core/bound.py`` per game and binding, ``games/_shared/search_loop.py`` per game): a non-empty
    ``tag`` is appended to each function's qualified name, which names numba's cache entries, so that
    every binding has its own (two games with one record dtype would otherwise share machine code)."""

    def deco(fn):
        if tag:
            fn.__qualname__ = f"{fn.__name__}__{tag}"
        return numba.njit(cache=True, **options)(fn)

    return deco
