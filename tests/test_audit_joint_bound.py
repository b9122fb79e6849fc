"""The Gaussian audit's joint test of both error counts (privcd.auditing.bounds.mu_lower_bound, issue 35):
its tail sum against a brute-force enumeration, its level under the mu-GDP null, and its power
against the union of two Clopper-Pearson bounds."""
import numpy as np
import pytest
from scipy import stats

from privcd.auditing.bounds import (ErrorCounts, gaussian_p_value, gaussian_tail, mu_from_rates, mu_lower_bound,
                                    probit_difference, rate_bounds)


def expected_counts(mu, runs, threshold):
    """The counts a mu-Gaussian pair's test "D if score > threshold" has on average (D ~ N(mu, 1),
    D' ~ N(0, 1))."""
    return ErrorCounts(threshold, runs, runs, round(runs * stats.norm.cdf(threshold - mu)),
                       round(runs * stats.norm.sf(threshold)))


@pytest.mark.parametrize("mu, false_positive_rate, observed", [(0.5, 0.3, 0.6), (1.0, 0.1, 0.9), (0.2, 0.5, 0.0)])
def test_the_tail_sum_equals_a_brute_force_enumeration(mu, false_positive_rate, observed):
    runs = 40
    counts = ErrorCounts(0.0, runs, runs, 0, 0)
    false_negative_rate = stats.norm.cdf(stats.norm.isf(false_positive_rate) - mu)
    values = np.arange(runs + 1)
    joint = np.outer(stats.binom.pmf(values, runs, false_positive_rate),
                     stats.binom.pmf(values, runs, false_negative_rate))
    statistic = probit_difference(values[:, None], runs, values[None, :], runs)
    exact = joint[statistic >= observed - 1e-12].sum()
    assert gaussian_tail(mu, false_positive_rate, counts, observed) == pytest.approx(exact, abs=1e-10)


def test_the_statistic_falls_with_each_count_and_estimates_mu():
    assert probit_difference(10, 100, 20, 100) > probit_difference(11, 100, 20, 100)
    assert probit_difference(10, 100, 20, 100) > probit_difference(10, 100, 21, 100)
    counts = expected_counts(1.0, 1_000_000, 0.5)
    assert probit_difference(counts.false_positives, counts.outside_runs, counts.false_negatives,
                             counts.inside_runs) == pytest.approx(1.0, abs=2e-3)


@pytest.mark.parametrize("mu, threshold", [(0.15, 0.075), (1.0, 0.5), (1.0, 1.5)])
def test_the_test_rejects_a_true_mu_gdp_claim_at_most_at_its_level(mu, threshold):
    """Counts drawn from a mu-Gaussian pair, on the curve's boundary (the null's worst case): "mu-GDP"
    is rejected (p-value <= 0.2) in at most 20% of 200 repetitions, up to 3 binomial standard
    deviations (57), and in at least 5% (the test is near its level, not vacuous; measured 75, 70
    and 70 of 400)."""
    rng = np.random.default_rng(35)
    runs, alpha = 2000, 0.2
    false_negative_rate, false_positive_rate = stats.norm.cdf(threshold - mu), stats.norm.sf(threshold)
    rejections = 0
    for _ in range(200):
        counts = ErrorCounts(threshold, runs, runs, int(rng.binomial(runs, false_negative_rate)),
                             int(rng.binomial(runs, false_positive_rate)))
        rejections += gaussian_p_value(mu, counts, 0.05 * alpha) <= alpha
    assert rejections <= 0.2 * 200 + 3 * np.sqrt(200 * 0.2 * 0.8)
    assert rejections >= 0.05 * 200


def test_the_p_value_grows_with_mu():
    counts = expected_counts(0.3, 50_000, 0.15)
    values = [gaussian_p_value(mu, counts, 0.0025) for mu in (0.2, 0.25, 0.28, 0.3, 0.35)]
    assert values == sorted(values)


@pytest.mark.parametrize("mu, share", [(0.1421, 0.93), (0.268, 0.95), (1.0, 0.985)])
def test_the_joint_bound_beats_two_clopper_pearson_bounds(mu, share):
    """At DP-CD's mu at epsilon 0.5 and 1 (delta 1e-5) and at mu = 1, on the expected counts of 90,000
    runs a side at the middle threshold: the joint bound is below mu and at least ``share`` of it
    (measured 0.930, 0.963 and 0.990), where the union of two 97.5% Clopper-Pearson bounds gives
    less (0.884, 0.939 and 0.983)."""
    counts = expected_counts(mu, 90_000, mu / 2)
    joint = mu_lower_bound(counts, 0.95)
    union = mu_from_rates(*rate_bounds(counts, 0.95))
    assert share * mu <= joint < mu
    assert joint > union
