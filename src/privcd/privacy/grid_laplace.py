"""Laplace noise that stays private as IEEE floats: the discrete Laplace on a power-of-two grid.

A release ``y = fl(f(D) + fl(lambda L))``, ``L`` a Laplace sample computed in floating point from
one uniform, is not the Laplace mechanism (Mironov 2012, "On significance of the least
significant bits for differential privacy"): the floats ``y`` can take depend on ``f(D)``, so an
observed ``y`` may be unreachable from a neighbour's ``f(D')``, which no epsilon allows.

This mechanism never rounds a noisy value. With ``g = 2^k`` it releases

    y = g (round(f(D) / g) + Z),    P(Z = z) proportional to exp(-|z| g / lambda'),

``Z`` the discrete Laplace, sampled exactly from uniform integers (Canonne, Kamath and Steinke
2020, "The discrete Gaussian for differential privacy", Algorithms 1 and 2; rational arithmetic
only). ``f / g`` and its rounding are exact in float64 (a power-of-two scaling, while ``f / g``
stays normal), and so is ``y`` while ``|round(f / g) + Z| < 2^53``: every output is an exact grid
point, and the law of ``y`` given ``round(f / g)`` is that of ``Z``, a law on the integers with no
floating point in it.

Privacy. Rounding moves each value by at most ``g / 2``, so a coordinate whose replace-one change
is ``Delta_j`` changes its rounded value by at most ``Delta_j + g_j``, and the discrete Laplace of
scale ``lambda'_j`` (in the values' units) has privacy loss at most ``sum_j (|Delta_j| + g_j) /
lambda'_j`` (the ratio of its probabilities at two integers ``d`` apart is at most
``exp(d g / lambda')``: the geometric mechanism of Ghosh, Roughgarden and Sundararajan 2012, the
discrete analogue of Dwork and Roth 2014, Theorem 3.6). :func:`grid_release` takes the scales ``lambda_j`` of a continuous
Laplace mechanism whose loss ``sum_j |Delta_j| / lambda_j`` is at most epsilon, and uses
``lambda'_j = (1 + eta) lambda_j`` and ``g_j <= eta epsilon lambda_j / p`` (``eta = 2^-20``): the
loss is then at most ``(epsilon + eta epsilon) / (1 + eta) = epsilon``, the same guarantee at
noise ``1 + 2^-20`` times as large.
"""
import math
import secrets
from fractions import Fraction

import numpy as np

SLACK = 2.0**-20  # eta: the share of epsilon the rounding may take, paid back by the noise
EXACT_INTEGERS = 2.0**53


def bernoulli(probability: Fraction, randbelow) -> bool:
    """True with probability ``probability`` (a fraction in [0, 1]), from one uniform integer."""
    return randbelow(probability.denominator) < probability.numerator


def bernoulli_exp(gamma: Fraction, randbelow) -> bool:
    """True with probability ``exp(-gamma)``, ``gamma >= 0`` rational (Canonne, Kamath, Steinke 2020,
    Algorithm 1): for gamma <= 1, the parity of the first failure of Bernoulli(gamma / k), k = 1, 2, ...;
    beyond, ``floor(gamma)`` draws of exp(-1) and one of the remainder."""
    while gamma > 1:
        if not bernoulli_exp(Fraction(1), randbelow):
            return False
        gamma -= 1
    k = 1
    while bernoulli(gamma / k, randbelow):
        k += 1
    return k % 2 == 1


def discrete_laplace(scale: Fraction, randbelow) -> int:
    """One draw of ``P(Z = z) proportional to exp(-|z| / scale)`` on the integers, ``scale = t / s``
    rational (Canonne, Kamath, Steinke 2020, Algorithm 2): ``X = U + t V`` is geometric with ratio
    ``exp(-1 / t)`` (U uniform below t, accepted with probability ``exp(-U / t)``; V geometric with
    ratio ``exp(-1)``), ``floor(X / s)`` geometric with ratio ``exp(-s / t)``, and a sign, with the
    negative zero rejected."""
    t, s = scale.numerator, scale.denominator
    while True:
        u = randbelow(t)
        if not bernoulli_exp(Fraction(u, t), randbelow):
            continue
        v = 0
        while bernoulli_exp(Fraction(1), randbelow):
            v += 1
        magnitude = (u + t * v) // s
        negative = randbelow(2) == 1
        if negative and magnitude == 0:
            continue
        return -magnitude if negative else magnitude


def grid_spacing(scale, epsilon, count):
    """The largest power of two ``g <= SLACK epsilon scale / count``: the grid of one coordinate."""
    return 2.0 ** math.floor(math.log2(SLACK * epsilon * scale / count))


def grid_release(values, scales, epsilon, randbelow=secrets.randbelow):
    """``values + Lap(scales)`` as the exact grid mechanism of the module docstring, for ``scales``
    that make the continuous Laplace mechanism epsilon-DP over all ``len(values)`` coordinates.

    Parameters
    ----------
    values : ndarray of shape (p,)
        The noiseless statistic.
    scales : ndarray of shape (p,)
        The continuous mechanism's Laplace scales ``lambda_j``; a zero scale (a coordinate that
        cannot change between neighbours) releases its value as it is.
    epsilon : float
        The continuous mechanism's epsilon, which this release keeps.
    randbelow : callable
        ``randbelow(k)``: a uniform integer in ``[0, k)``; the operating system's CSPRNG
        (``secrets.randbelow``) by default.

    Returns
    -------
    ndarray of shape (p,)
        Grid points: ``g_j (round(values_j / g_j) + Z_j)``, exact in float64.
    """
    values, scales = np.asarray(values, dtype=np.float64), np.asarray(scales, dtype=np.float64)
    released = values.copy()
    count = int(np.count_nonzero(scales))
    for j in np.flatnonzero(scales):
        spacing = grid_spacing(float(scales[j]), epsilon, count)
        center = round(float(values[j]) / spacing)
        noise = discrete_laplace(Fraction(float(scales[j])) * (1 + Fraction(SLACK)) / Fraction(spacing), randbelow)
        if abs(center + noise) >= EXACT_INTEGERS:
            raise OverflowError(f"coordinate {j}: the grid point {center + noise} x {spacing!r} is not exact in "
                                "float64; the value is too large for its noise scale")
        released[j] = (center + noise) * spacing
    return released
