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
from numba.np.random.generator_core import next_uint32
from numba.np.random.random_methods import bounded_lemire_uint64, buffered_bounded_lemire_uint32


@njit(cache=True)
def bounded_integer(rng, low, high):
    """``rng.integers(low, high)`` (``low < high``, int64), without allocating: the same number.

    numpy draws ``low + U`` with U uniform on ``{0, ..., span}``, ``span = high - 1 - low``
    (``random_bounded_uint64_fill``): nothing when ``span`` is 0, one raw 32-bit word when it is
    ``2**32 - 1``, Lemire's rejection on 32-bit words below that and on 64-bit words above.
    numba implements each branch for its own ``integers`` (``numba.np.random``), which this
    calls directly: ``rng.integers`` itself adds a size-1 array per call (nearly three times the
    cost) and 1 s to a kernel's first compile. ``tests/test_draws.py`` checks the equality with
    numpy's ``Generator.integers`` on every branch, so a change inside numba fails there.
    """
    span = high - 1 - low
    if span == 0:
        return low
    if span == 0xFFFFFFFF:
        return low + np.int64(next_uint32(rng.bit_generator))
    if span > 0xFFFFFFFF:
        return low + np.int64(bounded_lemire_uint64(rng.bit_generator, np.uint64(span)))
    return low + np.int64(buffered_bounded_lemire_uint32(rng.bit_generator, np.uint32(span)))
