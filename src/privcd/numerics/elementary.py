"""``exp``, natural log and ``sin``/``cos`` of whole turns that vectorise inside numba loops.

``math.exp``, ``math.log``, ``math.sin`` and ``math.cos`` are calls into libm that keep LLVM from
vectorising a loop (numba has no SVML here): the logistic loss's derivative would cost one scalar
call per sample. These are fdlibm's algorithms (Sun Microsystems 1993, as in musl's ``exp.c``,
``log.c``, ``__sin.c`` and ``__cos.c``) written with bit casts (:mod:`privcd.numerics.bits`) and
selects instead of branches, so a loop over them runs on SIMD lanes (four float64s with AVX2):

``exp(x)``: Cody-Waite reduction and a degree-9 minimax polynomial, within 1 ulp (its docstring);
    with ``math.exp`` instead a logistic pass takes several times as long (benchmarks/README.md, *Measurements behind the kernels' design*).

``log_positive(x)``, x a positive normal float64: write ``x = 2**k (1 + f)`` with
    ``1 + f`` in ``[sqrt(2)/2, sqrt(2))`` (integer arithmetic on the bits), ``s = f / (2 + f)``, and
    ``log(1 + f) = 2 atanh(s) = f - f^2/2 + s (f^2/2 + R(s^2))`` with R fdlibm's degree-14 minimax
    polynomial (error below 2**-58.45); ``log x = k ln2_hi + (that + k ln2_lo)``. Under 1 ulp.
``sqrt(x)``: IEEE's, through LLVM's intrinsic (numba calls libm's).
``sincos_turns(u)``, ``|u| <= 2**50``: ``(sin 2 pi u, cos 2 pi u)``. The range reduction is exact in
    turns: ``q = round(4 u)`` and ``r = u - q / 4`` in ``[-1/8, 1/8]`` (exact in floating point),
    then ``x = 2 pi r`` in ``[-pi/4, pi/4]`` (one rounding), fdlibm's kernels ``sin x`` (degree 13)
    and ``cos x`` (degree 14), and the quadrant q mod 4 swaps and negates them. A few ulp; no large
    argument reduction, and ``sin 2 pi u`` near the zeros of sine is exact to a few ulp of itself,
    which ``np.sin(2 * np.pi * u)`` is not.

``log_positive`` and ``sincos_turns`` have numpy twins (suffix ``_numpy``), used to replay the
random streams: their polynomial parts are plain arithmetic shared by both twins (the numba function's ``py_func``
runs on numpy arrays), so the numba functions and their numpy twins (suffix ``_numpy``) give the
same bits: numba does not contract ``a * b + c`` into a fused multiply-add without ``fastmath``.
"""
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from privcd.numerics.bits import float_as_int, int_as_float

# Cody-Waite split of log(2) (fdlibm's, in exp and log): LN2_HI has 32 significant bits, so
# k * LN2_HI is exact for |k| < 2**20.
LN2_HI = float.fromhex("0x1.62e42fee00000p-1")
LN2_LO = float.fromhex("0x1.a39ef35793c76p-33")
LG1, LG2, LG3, LG4, LG5, LG6, LG7 = [float.fromhex(h) for h in (
    "0x1.5555555555593p-1", "0x1.999999997fa04p-2", "0x1.2492494229359p-2", "0x1.c71c51d8e78afp-3",
    "0x1.7466496cb03dep-3", "0x1.39a09d078c69fp-3", "0x1.2f112df3e5244p-3")]
S1, S2, S3, S4, S5, S6 = [float.fromhex(h) for h in (
    "-0x1.5555555555549p-3", "0x1.111111110f8a6p-7", "-0x1.a01a019c161d5p-13", "0x1.71de357b1fe7dp-19",
    "-0x1.ae5e68a2b9cebp-26", "0x1.5d93a5acfd57cp-33")]
C1, C2, C3, C4, C5, C6 = [float.fromhex(h) for h in (
    "0x1.555555555554cp-5", "-0x1.6c16c16c15177p-10", "0x1.a01a019cb1590p-16", "-0x1.27e4f809c52adp-22",
    "0x1.1ee9ebdb4b1c4p-29", "-0x1.8fae9be8838d4p-37")]
TWO_PI = 2.0 * np.pi
# Adding 1.5 * 2**52 rounds a float of magnitude below 2**51 to an integer (ties to even), which
# then sits in the low bits of the sum's IEEE-754 representation.
ROUNDING_SHIFT = 6755399441055744.0
# The float with these bits plus a small non-negative integer e is 2**52 + e exactly: an int64 to
# float64 conversion that vectorises (AVX2 has no instruction for it).
TWO_52 = 4503599627370496.0
TWO_52_BITS = np.int64(0x4330000000000000)
# log: adding this to the bits moves mantissas above sqrt(2) into the next binade (musl's log.c).
SQRT_HALF_OFFSET = np.int64(0x3FF0000000000000 - 0x3FE6A09E00000000)
SQRT_HALF_BITS = np.int64(0x3FE6A09E00000000)
MANTISSA = np.int64(0x000FFFFFFFFFFFFF)
# exp: log2(e); arguments clamped to [EXP_LOW, EXP_HIGH], where exp underflows to 0 and
# overflows to inf in float64 (the clamp changes no result and keeps the exponent k in [-1076, 1024]).
LOG2_E = 1.4426950408889634
EXP_LOW = -746.0
EXP_HIGH = 710.0
EXPONENT_BIAS = 1023
# Minimax (Remez) polynomial P of degree 9 for (exp(r) - 1 - r) / r^2 on |r| <= log(2) / 2, for
# the relative error of 1 + r + r^2 P(r): 1e-17 (0.07 ulp) with these float64 coefficients.
EXP0, EXP1, EXP2, EXP3, EXP4 = (0.500000000000001, 0.16666666666666674, 0.04166666666652199, 0.008333333333322207,
                                0.0013888888947820891)
EXP5, EXP6, EXP7, EXP8, EXP9 = (0.00019841269886591, 2.4801487326012343e-05, 2.755724233668041e-06,
                                2.7632655759330083e-07, 2.511004989583968e-08)


@njit(cache=True, fastmath={"contract"})
def exp(x):
    """``e**x`` for a float64 ``x``, within 1 ulp of the correctly rounded value, branch-free.

    Range reduction (Cody-Waite, as in fdlibm's ``e_exp.c``): ``x = k log 2 + r`` with
    ``k = round(x / log 2)`` computed by the magic-number rounding trick
    ``t = x log2(e) + 1.5 * 2**52``, ``k = t - 1.5 * 2**52`` and ``|r| <= log(2) / 2``; then
    ``e**x = 2**k e**r`` with ``e**r = 1 + r + r^2 P(r)``, P a degree-9 minimax polynomial
    evaluated by Estrin's scheme (a dependency chain of depth 4 instead of Horner's 9, so the
    out-of-order core overlaps more samples). ``2**k`` is applied as ``2**k1 * 2**k2`` with
    ``k1 = round(k / 2)``, ``k2 = k - k1``, each built from its exponent bits, so results down
    to the subnormal range (``x >= -745.13``) and up to overflow (``x <= 709.78``) are right
    without a branch; the product by ``2**k1`` is exact and the last one rounds once.

    Special values: ``x`` is first clamped to [-746, 710] (comparisons, which let NaN through),
    so ``exp(-inf) = exp(x < -745.13) = 0``, ``exp(inf) = exp(x > 709.78) = inf`` and
    ``exp(nan) = nan``, as ``math.exp`` (which raises ``OverflowError`` instead of returning inf).

    Compiled with ``fastmath={"contract"}`` only: fused multiply-adds keep the rounding trick
    exact (``t`` is still rounded once, to an integer) and make the reduction and polynomial more
    accurate; reassociation would fold ``(x log2(e) + s) - s`` into ``x log2(e)`` and break it.
    """
    x = EXP_HIGH if x > EXP_HIGH else x
    x = EXP_LOW if x < EXP_LOW else x
    t = x * LOG2_E + ROUNDING_SHIFT
    k = t - ROUNDING_SHIFT
    r = (x - k * LN2_HI) - k * LN2_LO
    r2 = r * r
    r4 = r2 * r2
    r8 = r4 * r4
    p01 = EXP0 + EXP1 * r
    p23 = EXP2 + EXP3 * r
    p45 = EXP4 + EXP5 * r
    p67 = EXP6 + EXP7 * r
    p89 = EXP8 + EXP9 * r
    p03 = p01 + p23 * r2
    p47 = p45 + p67 * r2
    p07 = p03 + p47 * r4
    poly = p07 + p89 * r8
    exp_r = 1.0 + (r + r2 * poly)
    shifter_bits = float_as_int(ROUNDING_SHIFT)
    k_int = float_as_int(t) - shifter_bits
    k1 = float_as_int(k * 0.5 + ROUNDING_SHIFT) - shifter_bits
    scale1 = int_as_float((k1 + EXPONENT_BIAS) << 52)
    scale2 = int_as_float((k_int - k1 + EXPONENT_BIAS) << 52)
    return exp_r * scale1 * scale2


@intrinsic
def sqrt(typingctx, x):
    """IEEE square root of the float64 ``x`` (correctly rounded, as ``np.sqrt``), as LLVM's
    ``llvm.sqrt`` intrinsic: ``math.sqrt`` and ``np.sqrt`` in numba call libm's ``sqrt``, which
    keeps a loop from vectorising."""
    if x != types.float64:
        return None

    def codegen(context, builder, signature, args):
        function = builder.module.declare_intrinsic("llvm.sqrt", [ir.DoubleType()])
        return builder.call(function, args)

    return types.float64(types.float64), codegen


@njit(cache=True, error_model="numpy")
def log_reduced(f, k):
    """``k log 2 + log(1 + f)`` for ``1 + f`` in ``[sqrt(2)/2, sqrt(2))`` (fdlibm's e_log.c).

    numpy's error model: ``2 + f`` is never 0, and Python's check for a zero divisor would keep
    the loop around from vectorising.
    """
    half_square = 0.5 * f * f
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    t1 = w * (LG2 + w * (LG4 + w * LG6))
    t2 = z * (LG1 + w * (LG3 + w * (LG5 + w * LG7)))
    return s * (half_square + (t2 + t1)) + k * LN2_LO - half_square + f + k * LN2_HI


@njit(cache=True)
def sin_reduced(x):
    """``sin x`` for ``|x| <= pi/4`` (fdlibm's __kernel_sin with a zero tail)."""
    z = x * x
    w = z * z
    r = S2 + z * (S3 + z * S4) + z * w * (S5 + z * S6)
    return x + z * x * (S1 + z * r)


@njit(cache=True)
def cos_reduced(x):
    """``cos x`` for ``|x| <= pi/4`` (fdlibm's __kernel_cos with a zero tail)."""
    z = x * x
    w = z * z
    r = z * (C1 + z * (C2 + z * C3)) + w * w * (C4 + z * (C5 + z * C6))
    half = 0.5 * z
    one_minus = 1.0 - half
    return one_minus + (((1.0 - one_minus) - half) + z * r)


@njit(cache=True)
def log_positive(x):
    """``log x`` for a positive normal float64 x (module docstring), under 1 ulp."""
    bits = float_as_int(x) + SQRT_HALF_OFFSET
    k = (int_as_float((bits >> 52) | TWO_52_BITS) - TWO_52) - 1023.0
    f = int_as_float((bits & MANTISSA) + SQRT_HALF_BITS) - 1.0
    return log_reduced(f, k)


@njit(cache=True)
def sincos_turns(u):
    """``(sin 2 pi u, cos 2 pi u)`` for ``|u| <= 2**50`` (module docstring)."""
    shifted = 4.0 * u + ROUNDING_SHIFT
    quadrant = float_as_int(shifted) & 3
    x = (u - 0.25 * (shifted - ROUNDING_SHIFT)) * TWO_PI
    s = sin_reduced(x)
    c = cos_reduced(x)
    sin = c if quadrant & 1 else s
    cos = s if quadrant & 1 else c
    sin = -sin if quadrant & 2 else sin
    cos = -cos if (quadrant + 1) & 2 else cos
    return sin, cos


def log_positive_numpy(x):
    """numpy twin of :func:`log_positive` on an array."""
    bits = np.asarray(x, dtype=np.float64).view(np.int64) + SQRT_HALF_OFFSET
    k = (((bits >> 52) | TWO_52_BITS).view(np.float64) - TWO_52) - 1023.0
    f = ((bits & MANTISSA) + SQRT_HALF_BITS).view(np.float64) - 1.0
    return log_reduced.py_func(f, k)


def sincos_turns_numpy(u):
    """numpy twin of :func:`sincos_turns` on an array: ``(sin, cos)``."""
    u = np.asarray(u, dtype=np.float64)
    shifted = 4.0 * u + ROUNDING_SHIFT
    quadrant = shifted.view(np.int64) & 3
    x = (u - 0.25 * (shifted - ROUNDING_SHIFT)) * TWO_PI
    s = sin_reduced.py_func(x)
    c = cos_reduced.py_func(x)
    odd = (quadrant & 1) == 1
    sin = np.where(odd, c, s)
    cos = np.where(odd, s, c)
    return np.where(quadrant & 2, -sin, sin), np.where((quadrant + 1) & 2, -cos, cos)
