"""Mironov's reachability attack on floating-point Laplace and Gaussian noise, and its answer for the grid
mechanisms.

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

DP-GCD's step (:mod:`privcd.kernels.dp_gcd`) from ``w = 0`` without a penalty sets the chosen
coordinate to ``fl(0 - fl(gamma fl(g + fl(b L))))``: in an experiment ``L`` is the kernel's
:func:`~privcd.kernels.dp_gcd.standard_laplace` of a 53-bit uniform, non-decreasing in it, so the
step is non-increasing in the uniform's index and :func:`reachable_dp_gcd_step` decides by binary
search whether an observed step is reachable from a gradient ``g``. A release steps with
``fl(gamma fl(h m))`` for an integer ``m`` of full support (:func:`reachable_grid_step`,
a binary search over ``m``).

Gaussian noise (DP-CD, DP-SkGD's uniform sketch, DP-SGD) is attacked without a model of its
sampler: a first step from ``w = 0`` without a penalty is ``fl(0 - fl(a fl(v + fl(s g))))`` for the
released value v (a gradient entry or sum), the noise scale s, the step's factor a > 0 and the
sampler's double g; each rounding is non-decreasing, so the step is non-increasing in g, and
:func:`reachable_gaussian_step` searches every finite double g (ordered by :func:`double_of_key`).
A step that no double reaches from v' is unreachable whatever the sampler draws. It finds fewer
steps unreachable than a model of the sampler's own outputs would (every double is allowed),
but each it finds is certain: ``fl(s g)`` misses doubles wherever ``s`` is not a power of two, and
adding ``v`` or ``v'`` shifts the gaps differently. DP-SCD's first iterate is ``fl(fl(v + fl(s g)) /
(lam N))`` (:func:`reachable_dual_step`), non-decreasing in g, and its release's ``fl(fl(h m) / (lam
N))`` for an integer m (:func:`reachable_dual_grid_step`).
"""
import math
import struct

import numpy as np

UNIFORM_STEPS = 2**53
LARGEST_KEY = 0x7FEFFFFFFFFFFFFF  # the bits of the largest finite double: keys run from -this to this


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


def dp_gcd_step(index, gradient, scale, gamma):
    """DP-GCD's first step without a penalty from uniform number ``index`` (``u = index 2^-53``,
    :func:`privcd.kernels.dp_gcd.standard_laplace`): ``0 - gamma (gradient + scale L(u))``, with the
    kernel's operations in its order."""
    u = index * 2.0**-53
    laplace = math.copysign(-math.log(2.0 * min(u, 1.0 - u)), u - 0.5)
    return 0.0 - gamma * (gradient + scale * laplace)


def _first_at_most(step, observed, low, high):
    """The first index in ``[low, high]`` whose non-increasing ``step`` is ``<= observed``."""
    while low < high:
        middle = (low + high) // 2
        if step(middle) > observed:
            low = middle + 1
        else:
            high = middle
    return low


def _reached(step, observed, low, high):
    """Whether the non-increasing ``step`` takes the value ``observed`` at some index in ``[low, high]``
    (negation is exact, so a non-decreasing step is searched as its negation)."""
    return step(_first_at_most(step, observed, low, high)) == observed


def reachable_dp_gcd_step(observed, gradient, scale, gamma):
    """Whether some uniform index in ``[1, 2^53)`` makes :func:`dp_gcd_step` equal ``observed``."""
    return _reached(lambda i: dp_gcd_step(i, gradient, scale, gamma), observed, 1, UNIFORM_STEPS - 1)


def reachable_grid_step(observed, spacing, gamma):
    """Whether some integer ``m`` with ``|m| < 2^53`` makes a release's step ``0 - gamma (spacing m)``
    equal ``observed`` (every ``m`` is reachable: the discrete Laplace and Gaussian have full
    support)."""
    limit = UNIFORM_STEPS - 1
    return _reached(lambda m: 0.0 - gamma * (spacing * m), observed, -limit, limit)


def double_of_key(key):
    """The finite double of order ``key`` in ``[-LARGEST_KEY, LARGEST_KEY]``: a non-negative key is the
    double's bit pattern, a negative one the negated double of ``-key`` (so keys and doubles are in
    the same order; 0 is +0.0)."""
    if key >= 0:
        return struct.unpack("<d", struct.pack("<q", key))[0]
    return -struct.unpack("<d", struct.pack("<q", -key))[0]


def gaussian_step(noise, value, scale, factor):
    """A first step with floating-point noise ``noise``: ``0 - factor (value + scale noise)``, with the
    kernels' operations in their order (:mod:`privcd.kernels.dp_cd`'s ``noisy_proximal_update``,
    :mod:`privcd.kernels.dp_sgd`'s ``noisy_proximal_step``)."""
    return 0.0 - factor * (value + scale * noise)


def reachable_gaussian_step(observed, value, scale, factor):
    """Whether some finite double ``g`` makes :func:`gaussian_step` equal ``observed`` (binary search
    over the doubles' order, the step non-increasing in ``g``)."""
    return _reached(lambda key: gaussian_step(double_of_key(key), value, scale, factor), observed,
                    -LARGEST_KEY, LARGEST_KEY)


def dual_step(noise, value, scale, lam_n):
    """DP-SCD's first iterate with floating-point noise ``noise``: ``theta = (v + scale noise) / (lam N)``,
    with the kernel's operations in its order (:func:`privcd.kernels.dp_scd.dp_scd`: the batch's updates
    summed into v, then the noise, then the division)."""
    return (value + scale * noise) / lam_n


def reachable_dual_step(observed, value, scale, lam_n):
    """Whether some finite double ``g`` makes :func:`dual_step` equal ``observed`` (binary search over the
    doubles' order on its negation, the step non-decreasing in ``g``)."""
    return _reached(lambda key: -dual_step(double_of_key(key), value, scale, lam_n), -observed,
                    -LARGEST_KEY, LARGEST_KEY)


def reachable_dual_grid_step(observed, spacing, lam_n):
    """Whether some integer ``m`` with ``|m| < 2^53`` makes a DP-SCD release's first iterate
    ``(spacing m) / (lam N)`` (:func:`privcd.kernels.dp_scd_grid.dp_scd_on_grid`) equal ``observed``."""
    limit = UNIFORM_STEPS - 1
    return _reached(lambda m: -((spacing * m) / lam_n), -observed, -limit, limit)

