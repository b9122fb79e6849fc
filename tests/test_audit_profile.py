"""The curve audit's privacy profiles (privcd.auditing.curves.privacy_profile) equal dp-accounting's own
hockey-stick divergences, in both orders."""
import numpy as np
import pytest
from dp_accounting.pld import privacy_loss_distribution as pld

from privcd.auditing.curves import claimed_pld, epsilon_grid, privacy_profile
from privcd.privacy.mechanisms import SubsampledGaussian

DISTRIBUTIONS = {
    "DP-SCD's audit claim (symmetrised, 4 steps of q = 1/2)":
        lambda: claimed_pld(SubsampledGaussian(4, 1, 2, "without-replacement"), 0.3),
    "sampled Gaussian, add-or-remove (asymmetric)":
        lambda: pld.from_gaussian_mechanism(0.8, sampling_prob=0.1, value_discretization_interval=1e-3),
    "Laplace with a point mass at infinity (truncated)":
        lambda: pld.from_laplace_mechanism(1.0, value_discretization_interval=1e-3).compose(
            pld.from_randomized_response(0.2, 4, value_discretization_interval=1e-3)),
}


@pytest.mark.parametrize("name", sorted(DISTRIBUTIONS))
def test_the_profile_is_dp_accountings_hockey_stick_divergence(name):
    distribution = DISTRIBUTIONS[name]()
    epsilons = epsilon_grid(4.0)
    expected = np.asarray(distribution.get_delta_for_epsilon(epsilons))
    np.testing.assert_allclose(privacy_profile(distribution, epsilons), expected, rtol=1e-9, atol=1e-15)
    assert expected[0] > 1e-3  # the comparison is not of zeros


def test_projected_rates_are_the_bound_splits_expected_clopper_pearson_bounds():
    """``threshold_rates(projected_runs=N)``: each count's 90% upper rate on these runs, as a count out
    of N, bounded again at the test's level; at a rare rate the projection is tighter than these few
    runs' own bound, and it is never below the rate seen here."""
    from scipy import stats

    from privcd.auditing.bounds import PROJECTION_LEVEL, threshold_rates
    rng = np.random.default_rng(3)
    inside, outside = rng.normal(1.0, 1.0, 2000), rng.normal(0.0, 1.0, 2000)
    candidates, own_fpr, _ = threshold_rates(inside, outside, 0.95, count=50, central=0.02)
    _, fpr, fnr = threshold_rates(inside, outside, 0.95, count=50, central=0.02, projected_runs=90_000)
    positives = np.array([np.count_nonzero(outside > c) for c in candidates])
    upper = stats.beta.ppf(PROJECTION_LEVEL, positives + 1, 2000 - positives)
    expected = stats.beta.ppf(0.975, np.round(upper * 90_000) + 1, 90_000 - np.round(upper * 90_000))
    np.testing.assert_allclose(fpr, expected, rtol=1e-12)
    assert np.all(fpr >= positives / 2000) and np.all(fnr > 0)
    rare = positives <= 20
    assert rare.any() and np.all(fpr[rare] < own_fpr[rare])
