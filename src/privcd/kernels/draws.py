"""Bounded integer draws from a ``numpy.random.Generator`` inside numba kernels.

The DP-CD, DP-GCD and DP-SkGD kernels take the run's generator as an argument
(:func:`privcd.algorithms.base.kernel_rng`; DP-SGD and DP-SCD draw from the counter-based stream of
:mod:`privcd.kernels.streams` instead) and call its methods: ``rng.standard_normal()`` and ``rng.random()`` draw from the same PCG64
stream, with the same numbers, as numpy's own ``Generator`` methods called in the same order.
``rng.integers(low, high)`` does too, but numba 0.68 builds it on a size-1 array allocated per
call, nearly three times the cost of :func:`bounded_integer` (benchmarks/README.md, "Measurements
behind the kernels' design").
"""
import numpy as np
from numba import njit
from numba.np.random.random_methods import buffered_bounded_lemire_uint32


@njit(cache=True)
def bounded_integer(rng, low, high):
    """``rng.integers(low, high)`` (``low < high``, int64), without allocating: the same number.

    numpy draws ``low + U`` with U uniform on ``{0, ..., high - 1 - low}`` by Lemire's rejection
    on 32-bit words when ``high - 1 - low < 2**32 - 1`` (nothing is drawn when it is 0), which
    numba implements for its own ``integers`` in ``buffered_bounded_lemire_uint32``; wider
    ranges go to ``rng.integers`` itself. ``tests/test_draws.py`` checks the equality with
    numpy's ``Generator.integers``, so a change inside numba fails there.
    """
    span = high - 1 - low
    if span == 0:
        return low
    if span >= 0xFFFFFFFF:
        return rng.integers(low, high)
    return low + np.int64(buffered_bounded_lemire_uint32(rng.bit_generator, np.uint32(span)))
