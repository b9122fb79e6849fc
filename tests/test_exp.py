"""privcd.numerics.elementary.exp: within 1 ulp of a correctly rounded exp over the whole float64
range (mpmath at 50 digits as the reference), special values, and the loop it sits in vectorises."""
import math

import llvmlite.binding
import mpmath
import numpy as np
import pytest
from numba import njit

from conftest import fresh_assembly

from privcd.kernels.dispatch import loss_variant
from privcd.kernels.evaluate import loss_derivatives_into
from privcd.kernels.linalg import lagged_clipped_gradient_sum
from privcd.kernels.partial_sums import scratch
from privcd.numerics.elementary import exp
from privcd.losses import logistic


@njit(cache=True)
def _exp_all(x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = exp(x[i])
    return out


def _correctly_rounded_exp(values):
    with mpmath.workdps(50):
        return np.array([float(mpmath.exp(mpmath.mpf(float(v)))) for v in values])


def _ulp_distance(a, b):
    """Distance in units in the last place between non-negative float64 arrays (their bit patterns
    are ordered like the values)."""
    return np.abs(a.view(np.int64) - b.view(np.int64))


def test_within_one_ulp_of_the_correctly_rounded_exp_over_the_whole_range():
    rng = np.random.default_rng(0)
    x = np.concatenate([
        rng.uniform(-746.0, 710.0, 20_000),            # everything from underflow to overflow
        rng.uniform(-745.2, -708.0, 2_000),            # subnormal results
        rng.uniform(709.0, 709.79, 500),               # near overflow
        rng.uniform(-1.0, 1.0, 2_000),                 # no range reduction (k = 0, +-1)
        np.ldexp(rng.uniform(-1.0, 1.0, 1_000), -rng.integers(1, 1070, 1_000)),  # tiny |x|, down to subnormal
        (np.arange(-1076, 1025) + 0.5) * math.log(2),  # halfway points of the reduction k = round(x / log 2)
    ])
    got = _exp_all(x)
    assert _ulp_distance(got, _correctly_rounded_exp(x)).max() <= 1
    # and against numpy's exp on a dense grid
    grid = np.linspace(-745.0, 709.7, 2_000_001)
    assert _ulp_distance(_exp_all(grid), np.exp(grid)).max() <= 1


@pytest.mark.parametrize("x,expected", [
    (0.0, 1.0), (-0.0, 1.0), (5e-324, 1.0), (-5e-324, 1.0),
    (709.782712893384, 1.7976931348622732e308),     # largest x with a finite exp
    (709.7827128933841, math.inf), (710.0, math.inf), (1e300, math.inf), (math.inf, math.inf),
    (-745.1332191019411, 5e-324),                   # smallest non-zero result (a subnormal)
    (-745.2, 0.0), (-746.0, 0.0), (-1e300, 0.0), (-math.inf, 0.0),
])
def test_special_values_and_the_clamp(x, expected):
    assert _exp_all(np.array([x]))[0] == expected


def test_nan_propagates():
    assert math.isnan(_exp_all(np.array([math.nan]))[0])


def _vector_ops(assembly, op):
    """Instructions ``op`` on 256-bit (ymm) or 512-bit (zmm) registers: LLVM takes zmm where the host
    has AVX-512 (e.g. znver4)."""
    return sum(1 for line in assembly.splitlines()
               if line.strip().startswith(op) and ("ymm" in line or "zmm" in line))


needs_avx2 = pytest.mark.skipif("+avx2" not in llvmlite.binding.get_host_cpu_features().flatten().split(","),
                                reason="no AVX2 on this CPU")


@needs_avx2
def test_exp_vectorises():
    """The point of the module: a loop calling exp compiles to 256-bit (AVX2) or wider fused multiply-adds
    and calls no library function."""
    assembly = fresh_assembly(_exp_all, np.zeros(4))
    assert _vector_ops(assembly, "vfmadd") >= 10
    assert not any("exp" in line for line in assembly.splitlines() if "call" in line)


@needs_avx2
@pytest.mark.parametrize("lag_delta", [0.0, 0.5], ids=["no-lag", "lag"])
def test_logistic_hot_loops_vectorise(lag_delta):
    """The loops DP-CD, DP-SkGD and DP-GCD spend their time in run 4 samples at a time: the logistic
    derivative's division on 256-bit (or 512-bit) registers. (When the loss dispatch is left inside the loop,
    LLVM keeps it scalar, and with its clipping branches it runs 10-20x slower.)"""
    X = np.asfortranarray(np.random.default_rng(0).normal(size=(64, 3)))
    z, y = np.zeros(64), np.ones(64)
    empty, no_index = np.empty(0), np.empty(0, dtype=np.int64)
    lagged = fresh_assembly(lagged_clipped_gradient_sum, False, X, empty, no_index, no_index, 0, lag_delta, 1, z.copy(),
                            y, logistic.CODE, 1.0, scratch(64), *loss_variant(logistic.CODE))
    derivatives = fresh_assembly(loss_derivatives_into, logistic.CODE, z, y, np.empty(64))
    for assembly in (lagged, derivatives):
        assert _vector_ops(assembly, "vdivpd") >= 1
