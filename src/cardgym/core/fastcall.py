"""Direct calls into compiled kernels, skipping numba's per-call type dispatch.

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
