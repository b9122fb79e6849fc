"""The numba samplers of privcd.kernels.discrete_noise against their laws (Canonne, Kamath and
Steinke 2020): Bernoulli(exp(-gamma)), the discrete Laplace and the discrete Gaussian, each with a
control that the same draws fail against a wrong parameter (the test has power)."""
import math

import numpy as np
import pytest
from numba import njit
from scipy.stats import binomtest, chisquare

from privcd.kernels.discrete_noise import (MAX_SIGMA, bernoulli_exp, bernoulli_exp_half_square, discrete_gaussian,
                                           discrete_laplace)

DRAWS = 60_000


@njit
def _hits(rng, numerator, denominator, count, half_square):
    """How many of ``count`` draws of ``bernoulli_exp`` (or ``bernoulli_exp_half_square``) are true."""
    hits = 0
    for _ in range(count):
        hits += (bernoulli_exp_half_square(rng, numerator, denominator) if half_square
                 else bernoulli_exp(rng, numerator, denominator))
    return hits


@njit
def _draws(rng, parameter, count, gaussian):
    """``count`` draws of ``discrete_gaussian(rng, s)`` (or ``discrete_laplace(rng, t)``)."""
    out = np.empty(count, dtype=np.int64)
    for i in range(count):
        out[i] = discrete_gaussian(rng, parameter) if gaussian else discrete_laplace(rng, parameter)
    return out


@pytest.mark.parametrize("numerator, denominator", [(0, 1), (1, 3), (7, 7), (5, 2), (123_456_789, 2**33)])
def test_bernoulli_exp_has_probability_exp_minus_the_ratio(numerator, denominator):
    hits = _hits(np.random.default_rng(1), numerator, denominator, DRAWS, False)
    assert binomtest(hits, DRAWS, math.exp(-numerator / denominator)).pvalue > 1e-4


@pytest.mark.parametrize("numerator, denominator", [(0, 5), (2, 3), (999, 1000)])
def test_bernoulli_exp_half_square(numerator, denominator):
    hits = _hits(np.random.default_rng(2), numerator, denominator, DRAWS, True)
    assert binomtest(hits, DRAWS, math.exp(-(numerator / denominator) ** 2 / 2)).pvalue > 1e-4


def _chi_square_pvalue(draws, pmf_of):
    """Chi-square of ``draws`` against the law ``pmf_of(support)`` on the integers, the tails beyond
    the 99.5% quantile of |draw| pooled."""
    top = int(np.quantile(np.abs(draws), 0.995))
    support = np.arange(-top, top + 1)
    pmf = pmf_of(support)
    tail = (1.0 - pmf.sum()) / 2
    expected = np.concatenate([[tail], pmf, [tail]]) * len(draws)
    observed = np.concatenate([[np.sum(draws < -top)], np.bincount(draws[np.abs(draws) <= top] + top,
                                                                   minlength=2 * top + 1), [np.sum(draws > top)]])
    return chisquare(observed, expected).pvalue


def _laplace_pmf(t):
    q = math.exp(-1.0 / t)
    return lambda support: (1 - q) / (1 + q) * q ** np.abs(support)


def _gaussian_pmf(s):
    def pmf(support):
        reach = np.arange(-40 * s, 40 * s + 1)
        normaliser = np.exp(-reach.astype(float) ** 2 / (2 * s * s)).sum()
        return np.exp(-support.astype(float) ** 2 / (2 * s * s)) / normaliser
    return pmf


@pytest.mark.parametrize("t", [1, 3, 20])
def test_discrete_laplace_has_its_law(t):
    draws = _draws(np.random.default_rng(3), t, DRAWS, False)
    assert _chi_square_pvalue(draws, _laplace_pmf(t)) > 1e-4
    assert _chi_square_pvalue(draws, _laplace_pmf(1.1 * t)) < 1e-4


@pytest.mark.parametrize("s", [1, 4, 25])
def test_discrete_gaussian_has_its_law(s):
    draws = _draws(np.random.default_rng(4), s, DRAWS, True)
    assert _chi_square_pvalue(draws, _gaussian_pmf(s)) > 1e-4
    assert _chi_square_pvalue(draws, _gaussian_pmf(1.1 * s)) < 1e-4


def test_discrete_gaussian_at_the_largest_sigma_has_its_moments():
    """At ``MAX_SIGMA`` (products near the int64 limit) the mean is 0 and the variance s^2 (the
    discrete Gaussian's variance is within exp(-2 pi^2 s^2) of s^2, CKS 2020 Fact 18)."""
    draws = _draws(np.random.default_rng(5), MAX_SIGMA, 20_000, True).astype(float)
    assert abs(draws.mean()) < 4.5 * MAX_SIGMA / math.sqrt(len(draws))
    assert abs(draws.var() / MAX_SIGMA**2 - 1) < 4.5 * math.sqrt(2 / len(draws))
