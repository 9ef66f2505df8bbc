"""A software prefetch for the compiled batch loops: ``prefetch_row(arr, i, nbytes)`` asks the CPU to
bring the first ``nbytes`` of row ``i`` of ``arr`` (a record of a 1-D structured array, or a row of a
2-D array) into its caches, for writing, while the loop still works on an earlier row.

The vector step visits one record, its mask row and its observation row per env, in order. A record of
several kilobytes puts every record on its own pages, where the hardware
prefetcher does not follow, so each step used to wait for the lines it touches; asked for two envs
ahead, they are there in time (benchmarks/throughput.py, docs/benchmarks.md).

It emits LLVM's ``llvm.prefetch`` (a hint: no fault, no effect on results). Under
``NUMBA_DISABLE_JIT`` it is a Python no-op.
"""

from __future__ import annotations

from numba import config, types
from numba.core import cgutils
from numba.extending import intrinsic
from llvmlite import ir

#: the cache-line size assumed between two prefetched addresses (x86-64 and most ARM cores)
LINE = 64


def _prefetch_row_python(arr, i, nbytes):
    """`prefetch_row` under ``NUMBA_DISABLE_JIT``: nothing to do."""
    return None


@intrinsic
def _prefetch_row(typingctx, arr, i, nbytes):
    if not isinstance(arr, types.Array) or not isinstance(i, types.Integer) or not isinstance(nbytes, types.Integer):
        return None
    sig = types.void(arr, i, nbytes)

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        index = [args[1]] + [ir.Constant(args[1].type, 0)] * (aryty.ndim - 1)
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, index, wraparound=False, boundscheck=False)
        i8p = ir.IntType(8).as_pointer()
        base = builder.bitcast(ptr, i8p)
        i32, i64 = ir.IntType(32), ir.IntType(64)
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]), "llvm.prefetch.p0i8")
        n = args[2]
        n = builder.sext(n, i64) if n.type.width < 64 else n
        with cgutils.for_range_slice(builder, ir.Constant(i64, 0), n, ir.Constant(i64, LINE)) as (off, _):
            # rw=1 (the loop writes these rows), locality=3 (keep in every cache level), data cache
            builder.call(fn, [builder.gep(base, [off]), ir.Constant(i32, 1), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen


prefetch_row = _prefetch_row_python if config.DISABLE_JIT else _prefetch_row
