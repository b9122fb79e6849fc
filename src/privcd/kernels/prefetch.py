"""Software prefetch: ask the memory system for an array entry a kernel will read a few steps later.

A random coordinate step on a wide sparse X reads a column nobody could predict: its bounds in
``indptr``, then its entries in ``data`` and ``indices``, then the coordinate's parameters, each a
cache miss behind the one before. The coordinate methods draw their coordinates a block ahead
(:mod:`privcd.kernels.dp_cd`), so they know which columns come next and can ask for them while the
current step computes. ``llvm.prefetch`` is that request: a hint with no result and no effect on
any value (a prefetch of an address past the data is dropped, never faulted), so it changes no
bit of a run, only when its loads are served.

Requested a few steps ahead, a random column is read about as fast as the columns in storage
order; dense X never prefetches (benchmarks/README.md, *Measurements behind the kernels' design*).
"""
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

DISTANCE = 8  # steps ahead a coordinate kernel asks for a column's entries (twice that for its bounds)
LINE_DOUBLES = 8  # doubles in a 64-byte cache line: one request a line

_READ = 0  # llvm.prefetch's rw argument: a read
_KEEP_IN_ALL_LEVELS = 3  # its locality: keep in every cache level
_DATA_CACHE = 1  # its cache type: data


@intrinsic
def prefetch(typingctx, array, index):
    """``llvm.prefetch`` of the address of ``array[index]`` (1-D array, integer index, not checked:
    an address outside the array is a hint the processor drops)."""
    if not (isinstance(array, types.Array) and array.ndim == 1 and isinstance(index, types.Integer)):
        return None

    def codegen(context, builder, signature, arguments):
        array_type = signature.args[0]
        values = context.make_array(array_type)(context, builder, arguments[0])
        address = cgutils.get_item_pointer(context, builder, array_type, values, [arguments[1]], wraparound=False)
        byte_pointer = ir.IntType(8).as_pointer()
        word = ir.IntType(32)
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [byte_pointer, word, word, word]), "llvm.prefetch.p0")
        builder.call(function, [builder.bitcast(address, byte_pointer), word(_READ), word(_KEEP_IN_ALL_LEVELS),
                                word(_DATA_CACHE)])
        return context.get_dummy_value()

    return types.void(array, index), codegen


@njit(inline="always")
def prefetch_column(data, indices, indptr, coordinates, t, block):
    """For a coordinate kernel at step ``t`` of a block of ``block`` drawn ``coordinates`` on a
    CSC matrix: request the entries of the column :data:`DISTANCE` steps ahead (its bounds were
    requested :data:`DISTANCE` steps ago) and the bounds of the column twice as far ahead (the
    block's last column near its end). Without a branch: numba's reference-count pruning leaves
    the increfs of an inlined function's array arguments in a loop when the function branches,
    two atomic operations an array a step."""
    first = indptr[coordinates[min(t + DISTANCE, block - 1)]]
    prefetch(data, first)
    prefetch(indices, first)
    prefetch(indptr, coordinates[min(t + 2 * DISTANCE, block - 1)])
