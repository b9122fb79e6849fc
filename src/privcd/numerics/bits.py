"""Reinterpret the bits of a float64 as an int64 and back, inside numba kernels.

Vectorisable elementary functions (exponent extraction, scaling by ``2**k``) need these casts;
``numpy``'s ``view`` works on arrays only, and ``math.frexp``/``math.ldexp`` are library calls
that stop LLVM from vectorising a loop. Each function is one LLVM ``bitcast``: no instruction
at all on x86-64, and it vectorises with the loop around it.
"""
from numba import types
from numba.extending import intrinsic


@intrinsic
def float_as_int(typingctx, x):
    """The IEEE-754 bits of the float64 ``x`` as an int64."""
    if x != types.float64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(types.int64))

    return types.int64(types.float64), codegen


@intrinsic
def int_as_float(typingctx, x):
    """The float64 whose IEEE-754 bits are the int64 ``x``."""
    if x != types.int64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(types.float64))

    return types.float64(types.int64), codegen
