"""Mironov's reachability attack on floating-point Laplace noise, and its answer for the grid mechanism.

A release ``y = fl(m + fl(lambda L(u)))`` with ``L`` numpy's Laplace sample from the 53-bit uniform
``u = i 2^-53`` (``Generator.laplace``: ``log(u + u)`` below 1/2, ``-log((2 - u) - u)`` from 1/2) is
a non-decreasing function of ``i``, so a binary search over the 2^53 values of ``i`` decides
exactly whether an observed ``y`` is reachable from a hypothesised ``m`` (Mironov 2012,
"On significance of the least significant bits for differential privacy", Section 4). A ``y``
that ``m(D)`` produced and ``m(D')`` cannot produce tells D from D' with certainty: the privacy
loss is infinite, and the share of such releases is a lower bound on delta at every epsilon.

The grid mechanism (:mod:`privcd.privacy.grid_laplace`) releases ``g (c + Z)``, ``Z`` of full
support on the integers and ``g`` a function of the public scales: every grid point is reachable
from every ``m``, so :func:`reachable_on_grid` needs no search.
"""
import math

import numpy as np

UNIFORM_STEPS = 2**53


def numpy_laplace_release(index, loc, scale):
    """The release privcd's experiments make from uniform number ``index``: ``loc + L(u) * scale``
    with ``u = index 2^-53`` and ``L(u)`` numpy's standard Laplace sample (``random_laplace`` in
    numpy's ``distributions.c``, the C library's ``log``); ``index = 0`` is rejected by numpy."""
    u = index * 2.0**-53
    sample = -math.log((2.0 - u) - u) if u >= 0.5 else math.log(u + u)
    return loc + sample * scale


def reachable_numpy_laplace(observed, loc, scale):
    """Whether some uniform index in ``[1, 2^53)`` makes :func:`numpy_laplace_release` equal
    ``observed`` exactly (binary search on the non-decreasing release)."""
    low, high = 1, UNIFORM_STEPS - 1
    if not numpy_laplace_release(low, loc, scale) <= observed <= numpy_laplace_release(high, loc, scale):
        return False
    while low < high:  # the first index whose release is >= observed
        middle = (low + high) // 2
        if numpy_laplace_release(middle, loc, scale) < observed:
            low = middle + 1
        else:
            high = middle
    return numpy_laplace_release(low, loc, scale) == observed


def reachable_on_grid(observed, spacing):
    """Whether ``observed`` is a point of the grid ``spacing Z`` (then every centre reaches it)."""
    ratio = observed / spacing
    return bool(np.isfinite(ratio) and ratio == math.floor(ratio) and abs(ratio) < 2.0**53)
