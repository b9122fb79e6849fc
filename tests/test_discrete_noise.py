"""The numba samplers of privcd.kernels.discrete_noise against their laws (Canonne, Kamath and
Steinke 2020): Bernoulli(exp(-gamma)), the discrete Laplace and the discrete Gaussian, each with a
control that the same draws fail against a wrong parameter (the test has power)."""
import math

import numpy as np
import pytest
from numba import njit
from scipy.stats import binomtest, chisquare

from privcd.kernels.discrete_noise import (MAX_SIGMA, MAX_VARIANCE, bernoulli_exp, bernoulli_exp_half_square,
                                           discrete_gaussian, discrete_gaussian_of_variance, discrete_laplace,
                                           integer_square_root)

DRAWS = 60_000


@njit
def _hits(rng, numerator, denominator, count, half_square, weight=1, total=1):
    """How many of ``count`` draws of ``bernoulli_exp`` (or ``bernoulli_exp_half_square``) are true."""
    hits = 0
    for _ in range(count):
        hits += (bernoulli_exp_half_square(rng, numerator, denominator, weight, total) if half_square
                 else bernoulli_exp(rng, numerator, denominator))
    return hits


@njit
def _draws(rng, parameter, count, gaussian):
    """``count`` draws of ``discrete_gaussian(rng, s)`` (or ``discrete_laplace(rng, t)``)."""
    out = np.empty(count, dtype=np.int64)
    for i in range(count):
        out[i] = discrete_gaussian(rng, parameter) if gaussian else discrete_laplace(rng, parameter)
    return out


@njit
def _variance_draws(rng, variance, count):
    """``count`` draws of ``discrete_gaussian_of_variance(rng, variance)``."""
    out = np.empty(count, dtype=np.int64)
    for i in range(count):
        out[i] = discrete_gaussian_of_variance(rng, variance)
    return out


@pytest.mark.parametrize("numerator, denominator", [(0, 1), (1, 3), (7, 7), (5, 2), (123_456_789, 2**33)])
def test_bernoulli_exp_has_probability_exp_minus_the_ratio(numerator, denominator):
    hits = _hits(np.random.default_rng(1), numerator, denominator, DRAWS, False)
    assert binomtest(hits, DRAWS, math.exp(-numerator / denominator)).pvalue > 1e-4


@pytest.mark.parametrize("numerator, denominator, weight, total", [(0, 5, 1, 1), (2, 3, 1, 1), (999, 1000, 1, 1),
                                                                  (999, 1000, 1, 3), (7, 8, 4, 5)])
def test_bernoulli_exp_half_square(numerator, denominator, weight, total):
    hits = _hits(np.random.default_rng(2), numerator, denominator, DRAWS, True, weight, total)
    probability = math.exp(-(numerator / denominator) ** 2 * weight / (2 * total))
    assert binomtest(hits, DRAWS, probability).pvalue > 1e-4


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
        reach = np.arange(-40 * math.ceil(s), 40 * math.ceil(s) + 1)
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


@pytest.mark.parametrize("variance", [2, 3, 7, 50, 1_000])
def test_the_discrete_gaussian_of_a_non_square_variance_has_its_law(variance):
    """``t = isqrt(V) + 1`` is no longer ``sqrt(V) + 1`` and ``c = isqrt(V)^2 / V < 1``: the acceptance's
    factors must still give exp(-y^2 / (2 V)) exactly; 1.1 V fails."""
    draws = _variance_draws(np.random.default_rng(6), variance, DRAWS)
    assert _chi_square_pvalue(draws, _gaussian_pmf(math.sqrt(variance))) > 1e-4
    assert _chi_square_pvalue(draws, _gaussian_pmf(math.sqrt(1.1 * variance))) < 1e-4


def test_the_discrete_gaussian_of_the_largest_variance_has_its_moments():
    """At ``MAX_VARIANCE - 1`` (not a square: ``r = MAX_SIGMA - 1``, the products near their limits)."""
    variance = MAX_VARIANCE - 1
    draws = _variance_draws(np.random.default_rng(7), variance, 20_000).astype(float)
    assert abs(draws.mean()) < 4.5 * math.sqrt(variance / len(draws))
    assert abs(draws.var() / variance - 1) < 4.5 * math.sqrt(2 / len(draws))


@pytest.mark.parametrize("value", [0, 1, 2, 3, 4, 15, 16, 17, 2**40 - 1, 2**40, 2**52 - 1, (2**26 - 1) ** 2])
def test_the_integer_square_root_is_exact(value):
    assert integer_square_root(value) == math.isqrt(value)
