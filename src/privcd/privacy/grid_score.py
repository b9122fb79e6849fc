"""Private tuning's scores on a grid: a candidate's clipped data fit as an integer plus a discrete Gaussian.

:func:`privcd.tune_private` scores each candidate by its data fit with every loss clipped to ``B``,
``d = fl(fl(sum_i min(l_i, B)) / n)`` (replace-one sensitivity ``B / n``: losses are ``>= 0``), plus
its public penalty ``P`` and Gaussian noise of standard deviation ``B / (n mu_s)``: mu_s-GDP. An
experiment draws that noise in floating point. A release (:func:`grid_score`) ranks the integers

    rint(fl(d / h)) + rint(fl(P / h)) + Z,    h = fl(B / n) / K,    Z ~ N_Z(0, s^2),

in Python's exact integers, ``Z`` an exact discrete Gaussian
(:func:`privcd.kernels.discrete_noise.discrete_gaussian`); the penalty's integer is the same for
both neighbours, given the candidate's model.

Sensitivity in grid units (:func:`score_sensitivity_units`), with ``u = 2^-53`` and
``gamma_k = k u / (1 - k u)``: the shared records give the same clipped losses bit for bit, each sum
is within ``gamma_{n-1} n B`` of its exact value (Higham 2002, eq. (4.4); terms in [0, B]), so the
two sums are at most ``B (1 + 2 n gamma_{n-1})`` apart and each is at most ``n B (1 + gamma_{n-1})``;
the division by n and the one by h each add a relative error ``u``, and ``h >= B (1 - u) / (n K)``
(``K`` a power of two divides exactly). The two ``fl(d / h)`` are at most

    D = K (1 + 2 n gamma_{n-1} + 2 u n (1 + gamma_{n-1}) (2 + u)) / (1 - u)

apart, and ``S = floor(D) + 1`` bounds their integers' distance (``K + 1`` for n up to millions).

Privacy: ``N_Z(0, s^2)`` against ``N_Z(S, s^2)`` has Renyi divergence at most ``alpha S^2 / (2 s^2)``
(Canonne, Kamath and Steinke 2020, Proposition 5), so ``s = ceil(S / mu_s)`` makes the score's RDP
at most the ``alpha mu_s^2 / 2`` that private tuning's accounting gives it. ``K`` is 1,024, lowered
by powers of two while ``s`` would pass half the sampler's limit.
"""
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from privcd.kernels.discrete_noise import MAX_SIGMA, discrete_gaussian
from privcd.privacy.grid_gaussian import FINEST_RATIO, ROUNDING, largest_fitting_ratio, summation_gamma
from privcd.validation import check_positive, check_positive_int


@dataclass(frozen=True)
class ScoreGrid:
    """A release's score grid: spacing ``h``, sensitivity ``S`` and noise ``s`` in grid units."""

    spacing: float
    sensitivity_units: int
    sigma_units: int


def score_sensitivity_units(n, ratio):
    """``S``: the most two neighbours' ``rint(fl(d / h))`` can differ by (module docstring), exactly."""
    n = check_positive_int("n", n)
    k = check_positive_int("ratio", ratio)
    gamma = summation_gamma(n)
    spread = Fraction(k) * (1 + 2 * n * gamma + 2 * ROUNDING * n * (1 + gamma) * (2 + ROUNDING)) / (1 - ROUNDING)
    return math.floor(spread) + 1


def score_grid(bound, n, mu):
    """The :class:`ScoreGrid` of scores whose losses are clipped to ``bound``, on ``n`` records, at
    mu-GDP (module docstring)."""
    bound = check_positive("bound", bound)
    mu = check_positive("mu", mu)
    ratio = largest_fitting_ratio(FINEST_RATIO,
                                  lambda ratio: math.ceil(score_sensitivity_units(n, ratio) / mu) <= MAX_SIGMA // 2)
    sensitivity = score_sensitivity_units(n, ratio)
    sigma = math.ceil(sensitivity / mu)
    if sigma > MAX_SIGMA:
        raise ValueError(f"mu={mu!r}: a release's score noise would need a discrete Gaussian of sigma {sigma} > "
                         f"{MAX_SIGMA} grid units; give the score a larger share of the budget")
    return ScoreGrid(float(np.float64(bound) / n) / ratio, sensitivity, sigma)


def noisy_score_units(data_fit, penalty, grid, rng):
    """``rint(fl(d / h)) + rint(fl(P / h)) + Z`` as a Python integer (module docstring). The data fit
    is at most ``B (1 + gamma_{n-1})`` (every clipped loss, NaN included, is in [0, B]); a penalty
    that is not finite (a diverged model, public) counts as larger than every finite score."""
    ratio = penalty / grid.spacing
    public = int(np.rint(ratio)) if math.isfinite(ratio) else 2 ** 1100
    return int(np.rint(data_fit / grid.spacing)) + public + int(discrete_gaussian(rng, grid.sigma_units))
