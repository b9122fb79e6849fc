"""Exact discrete Laplace and discrete Gaussian samples inside numba kernels, from uniform integers.

Canonne, Kamath and Steinke 2020 (*The discrete Gaussian for differential privacy*, NeurIPS),
Algorithms 1 to 3, in int64 arithmetic: no floating-point number enters a sample, so its law is
exactly the law written, given uniform integers (:func:`~privcd.kernels.draws.bounded_integer`
on the run's PCG64 generator). Release-mode kernels add these integers to values rounded on a
grid (:mod:`privcd.privacy.grid_gaussian`), which is how their noise stays private as IEEE
floats (Mironov 2012).

* ``bernoulli_exp(a, b)``: true with probability ``exp(-a / b)`` (Algorithm 1: for ``a / b <= 1``
  the parity of the first failure of Bernoulli(a / (b k)), k = 1, 2, ..., each drawn as
  Bernoulli(a / b) and Bernoulli(1 / k); beyond, ``floor(a / b)`` draws of ``exp(-1)`` and one of the
  remainder).
* ``discrete_laplace(t)``: ``P(Y = y)`` proportional to ``exp(-|y| / t)`` for an integer ``t >= 1``
  (Algorithm 2 with denominator 1).
* ``discrete_gaussian_of_variance(V)``: ``P(Y = y)`` proportional to ``exp(-y^2 / (2 V))`` for an
  integer variance parameter ``1 <= V <= MAX_VARIANCE`` (Algorithm 3: a discrete Laplace of scale
  ``t = r + 1``, ``r = isqrt(V)``, accepted with probability ``exp(-(|Y| - V / t)^2 / (2 V))``). With
  ``m = r t``, ``x = ||Y| t - V| = A m + B`` (``0 <= B < m``) and ``c = r^2 / V <= 1`` (kept as a reduced
  fraction ``w / W``) the exponent ``x^2 / (2 V t^2)`` is ``A^2 c / 2 + A (B / m) c + (B / m)^2 c / 2``,
  accepted as ``A`` draws of ``exp(-A c / 2)``, ``A`` of ``exp(-(B / m) c)`` and one of
  ``exp(-(B / m)^2 c / 2)``; Algorithm 1 draws each Bernoulli of a product of ratios as one
  Bernoulli per ratio. Every ratio has an int64 numerator and denominator for ``V <= 2^40``
  (``A w <= A r^2 <= x r / t < 2^62``). Proposals with ``|Y| t > 2^62`` are rejected; under the
  discrete Laplace they have probability below ``exp(-2^62 / t^2) <= exp(-2^22)``, so the law is
  within that total variation of the exact one. A non-square ``V`` is the variance of a lazily
  summed noise (:mod:`privcd.privacy.grid_dual`).
* ``discrete_gaussian(s)``: the same for ``V = s^2`` (``c = 1``), ``1 <= s <= MAX_SIGMA`` an integer.
* ``noisy_value``: a value plus its noise, in floating point (experiments) or on a grid (releases).

The Bernoulli draws and the discrete Laplace are inlined by numba into the two samplers: compiled
apart, their nine compilations (two of them twice, for literal and int64 arguments) added 4.0 s
to a release's first fit in an empty numba cache, inlined 2.7 s.
"""
import numpy as np
from numba import njit

from privcd.kernels.draws import bounded_integer

MAX_SIGMA = 2**20  # the largest s of discrete_gaussian (int64 arithmetic; module docstring)
MAX_VARIANCE = MAX_SIGMA**2  # the largest V of discrete_gaussian_of_variance
_PRODUCT_LIMIT = 2**62


@njit(cache=True, inline="always")
def bernoulli_ratio(rng, numerator, denominator):
    """True with probability ``numerator / denominator`` (``0 <= numerator <= denominator``). (``np.int64``:
    a literal denominator would compile :func:`~privcd.kernels.draws.bounded_integer` once more for its type.)"""
    return bounded_integer(rng, 0, np.int64(denominator)) < numerator


@njit(cache=True, inline="always")
def bernoulli_exp_of_product(rng, numerator, denominator, weight, total):
    """True with probability ``exp(-(numerator / denominator) (weight / total))`` for both ratios at most
    one (Canonne, Kamath and Steinke 2020, Algorithm 1, each Bernoulli(gamma / k) drawn as
    Bernoulli(numerator / denominator) and Bernoulli(weight / (total k)))."""
    k = 1
    while bernoulli_ratio(rng, numerator, denominator) and bernoulli_ratio(rng, weight, total * k):
        k += 1
    return k % 2 == 1


@njit(cache=True, inline="always")
def bernoulli_exp_at_most_one(rng, numerator, denominator):
    """True with probability ``exp(-numerator / denominator)`` for ``numerator <= denominator``
    (Canonne, Kamath and Steinke 2020, Algorithm 1)."""
    return bernoulli_exp_of_product(rng, numerator, denominator, 1, 1)


@njit(cache=True, inline="always")
def bernoulli_exp(rng, numerator, denominator):
    """True with probability ``exp(-numerator / denominator)`` (``numerator >= 0``, ``denominator >= 1``)."""
    while numerator > denominator:
        if not bernoulli_exp_at_most_one(rng, 1, 1):
            return False
        numerator -= denominator
    return bernoulli_exp_at_most_one(rng, numerator, denominator)


@njit(cache=True, inline="always")
def bernoulli_exp_half_square(rng, numerator, denominator, weight, total):
    """True with probability ``exp(-(numerator / denominator)^2 weight / (2 total))`` for
    ``numerator < denominator`` and ``1 <= weight <= total``: Algorithm 1 with each
    Bernoulli((numerator / denominator)^2 weight / (2 total k)) drawn as three."""
    k = 1
    while (bernoulli_ratio(rng, numerator, denominator) and bernoulli_ratio(rng, numerator, denominator)
           and bernoulli_ratio(rng, weight, 2 * total * k)):
        k += 1
    return k % 2 == 1


@njit(cache=True, inline="always")
def discrete_laplace(rng, t):
    """``P(Y = y)`` proportional to ``exp(-|y| / t)`` on the integers, ``t >= 1`` an integer
    (Algorithm 2: ``U + t V`` is geometric of ratio ``exp(-1 / t)``, then a sign, negative zero
    rejected)."""
    while True:
        u = bounded_integer(rng, 0, t)
        if not bernoulli_exp_at_most_one(rng, u, t):
            continue
        v = 0
        while bernoulli_exp_at_most_one(rng, 1, 1):
            v += 1
        magnitude = u + t * v
        if bounded_integer(rng, 0, np.int64(2)) == 1:  # not a literal type (bernoulli_ratio)
            if magnitude == 0:
                continue
            return -magnitude
        return magnitude


@njit(cache=True)
def integer_square_root(value):
    """``isqrt(value)`` for ``0 <= value <= 2^52``: the float root corrected to the exact one."""
    root = np.int64(np.sqrt(np.float64(value)))
    while root * root > value:
        root -= 1
    while (root + 1) * (root + 1) <= value:
        root += 1
    return root


@njit(cache=True)
def greatest_common_divisor(a, b):
    """``gcd(a, b)`` of non-negative integers (Euclid)."""
    while b:
        a, b = b, a % b
    return a


@njit(cache=True)
def discrete_gaussian_of_variance(rng, variance):
    """``P(Y = y)`` proportional to ``exp(-y^2 / (2 V))`` on the integers, ``1 <= V <= MAX_VARIANCE`` an
    integer (Algorithm 3; the exponent's int64 decomposition in the module docstring)."""
    root = integer_square_root(variance)
    common = greatest_common_divisor(root * root, variance)
    return discrete_gaussian_accepted(rng, variance, root, root * root // common, variance // common)


@njit(cache=True)
def discrete_gaussian(rng, s):
    """``P(Y = y)`` proportional to ``exp(-y^2 / (2 s^2))`` on the integers, ``1 <= s <= MAX_SIGMA`` an integer."""
    return discrete_gaussian_accepted(rng, s * s, s, 1, 1)


@njit(cache=True)
def discrete_gaussian_accepted(rng, variance, root, weight, total):
    """Algorithm 3 for ``V = variance``, ``r = root = isqrt(V)`` and ``c = weight / total = r^2 / V``
    (module docstring): discrete Laplace proposals until one is accepted."""
    t = root + 1
    m = root * t
    while True:
        y = discrete_laplace(rng, t)
        magnitude = abs(y)
        if magnitude > _PRODUCT_LIMIT // t:
            continue
        x = abs(magnitude * t - variance)
        whole = x // m
        part = x - whole * m
        accepted = True
        for _ in range(whole):
            if not (bernoulli_exp(rng, whole * weight, 2 * total)
                    and bernoulli_exp_of_product(rng, part, m, weight, total)):
                accepted = False
                break
        if accepted and bernoulli_exp_half_square(rng, part, m, weight, total):
            return y


@njit(inline="always")
def noisy_value(value, scale, draw, discrete):
    """A released value.

    Experiment (``discrete`` false): ``value + scale * draw``, ``draw`` a floating-point sample.
    Release: ``h (rint(value / h) + draw)`` with ``h = scale`` the grid spacing and ``draw`` an
    integer of this module (exact in float64): the integer ``rint(value / h) + draw`` is the
    mechanism's output and the product post-processing (:mod:`privcd.privacy.grid_gaussian`).
    ``h = 0`` (a clipping threshold of 0, whose clipped sum is exactly 0) releases the value as
    it is.
    """
    if discrete:
        if scale == 0.0:
            return value
        return (np.rint(value / scale) + draw) * scale
    return value + scale * draw
