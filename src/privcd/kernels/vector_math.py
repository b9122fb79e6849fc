"""Elementary functions that LLVM can vectorise inside numba loops.

``math.exp`` compiles to a call into libm, which stops LLVM from vectorising the loop around it
(the logistic loss's derivative then costs one scalar call per sample). :func:`exp` is written
with arithmetic, comparisons and the bit casts of :mod:`privcd.kernels.bits` only, so a loop over
samples that calls it runs four samples at a time with AVX2.
"""
from numba import njit

from privcd.kernels.bits import float_as_int, int_as_float

_LOG2E = 1.4426950408889634
# Adding 1.5 * 2**52 to |t| < 2**51 rounds t to the nearest integer (ties to even), which then
# sits in the low bits of the sum's IEEE-754 representation.
_SHIFTER = 6755399441055744.0
# Cody-Waite split of log(2) (fdlibm's): _LN2_HI has 32 significant bits, so k * _LN2_HI is exact
# for |k| < 2**20.
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
# Arguments are clamped to [_LOW, _HIGH]: exp(_LOW) underflows to 0 and exp(_HIGH) overflows to
# inf in float64, so the clamp changes no result, and it keeps the exponent k in [-1076, 1024].
_LOW = -746.0
_HIGH = 710.0
_BIAS = 1023
# Minimax (Remez) polynomial P of degree 9 for (exp(r) - 1 - r) / r^2 on |r| <= log(2) / 2, for
# the relative error of 1 + r + r^2 P(r): 1e-17 (0.07 ulp) with these float64 coefficients.
_P0 = 0.500000000000001
_P1 = 0.16666666666666674
_P2 = 0.04166666666652199
_P3 = 0.008333333333322207
_P4 = 0.0013888888947820891
_P5 = 0.00019841269886591
_P6 = 2.4801487326012343e-05
_P7 = 2.755724233668041e-06
_P8 = 2.7632655759330083e-07
_P9 = 2.511004989583968e-08


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
    x = _HIGH if x > _HIGH else x
    x = _LOW if x < _LOW else x
    t = x * _LOG2E + _SHIFTER
    k = t - _SHIFTER
    r = (x - k * _LN2_HI) - k * _LN2_LO
    r2 = r * r
    r4 = r2 * r2
    r8 = r4 * r4
    p01 = _P0 + _P1 * r
    p23 = _P2 + _P3 * r
    p45 = _P4 + _P5 * r
    p67 = _P6 + _P7 * r
    p89 = _P8 + _P9 * r
    p03 = p01 + p23 * r2
    p47 = p45 + p67 * r2
    p07 = p03 + p47 * r4
    poly = p07 + p89 * r8
    exp_r = 1.0 + (r + r2 * poly)
    shifter_bits = float_as_int(_SHIFTER)
    k_int = float_as_int(t) - shifter_bits
    k1 = float_as_int(k * 0.5 + _SHIFTER) - shifter_bits
    scale1 = int_as_float((k1 + _BIAS) << 52)
    scale2 = int_as_float((k_int - k1 + _BIAS) << 52)
    return exp_r * scale1 * scale2
