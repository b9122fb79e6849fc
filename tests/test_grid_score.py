"""Private tuning's scores on a grid (privcd.privacy.grid_score): the integers of neighbouring data fits,
summed by the kernel, never further apart than S (and about K apart when one loss swings fully); the
noise's RDP within mu-GDP's; a NaN loss counted as the clip; a release's tuning scores on the grid."""
import math

import numpy as np
import pytest

import privcd
from privcd.kernels.evaluate import clipped_data_fit_value
from privcd.losses import squared
from privcd.privacy.grid_score import noisy_score_units, score_grid, score_sensitivity_units


@pytest.mark.parametrize("n", [1, 7, 1000, 100_000])
def test_neighbouring_data_fits_are_at_most_s_units_apart(n):
    """Squared losses ``z_i^2`` (y = 0) clipped to B; the neighbour moves one record's loss from 0 to
    past B, the largest swing. Over random data the integers differ by at most S, and by at least
    K - 1 (S is K + 1 for these n: the bound is tight)."""
    rng = np.random.default_rng(n)
    bound = 2.5
    grid = score_grid(bound, n, mu=1.0)
    ratio = round(bound / n / grid.spacing)
    assert grid.sensitivity_units == score_sensitivity_units(n, ratio) == ratio + 1
    y = np.zeros(n)
    for _ in range(50):
        z = rng.uniform(0.0, 2.0, size=n)
        z[0] = 0.0
        other = z.copy()
        other[0] = 10.0
        here = clipped_data_fit_value(squared.CODE, z, y, bound)
        there = clipped_data_fit_value(squared.CODE, other, y, bound)
        apart = abs(int(np.rint(here / grid.spacing)) - int(np.rint(there / grid.spacing)))
        assert ratio - 1 <= apart <= grid.sensitivity_units


@pytest.mark.parametrize("mu", [0.05, 0.5, 3.0])
def test_the_score_noise_is_within_mu_gdp(mu):
    """S / s <= mu: the discrete Gaussian's RDP alpha (S / s)^2 / 2 is at most mu-GDP's."""
    grid = score_grid(1.0, 5000, mu)
    assert grid.sensitivity_units / grid.sigma_units <= mu
    assert grid.sensitivity_units / grid.sigma_units >= 0.999 * mu


def test_a_nan_loss_counts_as_the_clip():
    z, y = np.array([np.nan, 0.5]), np.zeros(2)
    assert clipped_data_fit_value(squared.CODE, z, y, 3.0) == (3.0 + 0.25) / 2


def test_a_scores_integer_is_the_data_fit_and_penalty_on_the_grid():
    grid = score_grid(1.0, 100, 1.0)
    rng = np.random.default_rng(0)
    draws = [noisy_score_units(0.25, 0.5, grid, rng) for _ in range(4000)]
    centre = round(0.25 / grid.spacing) + round(0.5 / grid.spacing)
    assert abs(np.mean(draws) - centre) < 4 * grid.sigma_units / math.sqrt(4000)
    assert np.std(draws) == pytest.approx(grid.sigma_units, rel=0.05)
    assert noisy_score_units(0.25, math.inf, grid, rng) > centre + 10**6 * grid.sigma_units


def test_a_release_tunes_with_scores_on_the_grid():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(600, 4))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    problem = privcd.Problem(X, np.sign(X[:, 0] + 0.1), "logistic", "l2", 1e-3, row_norm_bound=1.0)
    grid = {"passes": [1, 2], "step": [0.5, 1.0], "clip": [1.0]}
    run = privcd.tune_private(problem, "dp-cd", grid, epsilon=1.0, delta=1e-5)
    tuning = run.info["tuning"]
    assert "candidates" not in tuning
    score = tuning["score_grid"]
    assert score["sigma_units"] == math.ceil(score["sensitivity_units"] / tuning["mu_score"])
    experiment = privcd.tune_private(problem, "dp-cd", grid, epsilon=1.0, delta=1e-5, seed=0)
    assert "score_grid" not in experiment.info["tuning"]
