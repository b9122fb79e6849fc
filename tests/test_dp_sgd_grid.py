"""DP-SGD's release on a grid (privcd.privacy.grid_sum, privcd.kernels.dp_sgd_grid): the L2 sensitivity
in grid units against adversarial neighbours summed as the kernel sums, the discrete Gaussian's Renyi
divergence against the continuous bound the accounting uses, the release's epsilon by dp-accounting's
own RDP accountant, the kernel's step against the experiment's, and what a release refuses."""
import math
import warnings

import dp_accounting
import numpy as np
import pytest
from dp_accounting import dp_event, rdp

import privcd
from privcd.algorithms.base import kernel_key, kernel_rng
from privcd.kernels.dp_sgd import SAMPLE_WITHOUT_REPLACEMENT, dp_sgd
from privcd.kernels.dp_sgd_grid import dp_sgd_on_grid
from privcd.kernels.layout import row_arrays
from privcd.privacy.grid_sum import sum_grid_ratio, sum_sensitivity_units


def clipped_sum(rows, derivatives, clip):
    """The kernel's batch sum in float64, in its order: ``c_i = d_i min(1, clip / fl(|d_i| ||x_i||))``,
    terms ``fl(c_i x_i)`` added record after record."""
    total = np.zeros(rows.shape[1])
    for row, derivative in zip(rows, derivatives):
        norm = abs(derivative) * math.sqrt(float(np.dot(row, row)))
        scale = derivative * (clip / norm) if norm > clip else derivative
        total = total + scale * row
    return total


@pytest.mark.parametrize("batch_size, p", [(1, 1), (1, 300), (40, 8), (400, 50), (2000, 3)])
def test_the_sensitivity_bounds_the_integers_of_adversarial_neighbours(batch_size, p):
    """Neighbours differ in one record, replaced by its opposite (the largest move); the shared
    records give the same bits. Their integers ``rint(G / h)`` never pass S, and S is within
    ``sqrt(p) + 3`` of K (the bound is not loose)."""
    rng = np.random.default_rng(batch_size * 1000 + p)
    clip = 0.7
    ratio = sum_grid_ratio(p, 1.0)
    sensitivity = sum_sensitivity_units(batch_size, p, ratio)
    assert sensitivity <= ratio + math.sqrt(p) + 3
    spacing = 2 * clip / ratio
    worst = 0.0
    for _ in range(200):
        rows = rng.normal(size=(batch_size, p)) * rng.uniform(0.1, 3.0)
        derivatives = rng.normal(size=batch_size) * 2.0
        other_rows, other_derivatives = rows.copy(), derivatives.copy()
        other_rows[-1], other_derivatives[-1] = -rows[-1] * rng.uniform(1.0, 2.0), derivatives[-1]
        here = np.rint(clipped_sum(rows, derivatives, clip) / spacing)
        there = np.rint(clipped_sum(other_rows, other_derivatives, clip) / spacing)
        worst = max(worst, float(np.linalg.norm(here - there)))
    assert worst <= sensitivity
    assert worst > 0.5 * ratio  # the clipped records do move the sum by about K units


@pytest.mark.parametrize("sigma", [1, 3, 10])
@pytest.mark.parametrize("shift", [1, 2, 5])
def test_the_discrete_gaussians_renyi_divergence_is_at_most_the_continuous_ones(sigma, shift):
    """Canonne, Kamath and Steinke 2020, Proposition 5, summed numerically:
    ``D_alpha(N_Z(mu, s^2) || N_Z(0, s^2)) <= alpha mu^2 / (2 s^2)`` for integer mu."""
    support = np.arange(-60 * sigma - shift, 60 * sigma + shift + 1)
    log_p = -(support - shift) ** 2 / (2.0 * sigma**2)
    log_q = -support**2 / (2.0 * sigma**2)
    log_p -= np.logaddexp.reduce(log_p)
    log_q -= np.logaddexp.reduce(log_q)
    for alpha in (1.5, 2.0, 5.0, 32.0):
        divergence = np.logaddexp.reduce(alpha * log_p + (1 - alpha) * log_q) / (alpha - 1)
        assert divergence <= alpha * shift**2 / (2.0 * sigma**2) * (1 + 1e-12)


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1500, 6))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return privcd.Problem(X, np.sign(X @ rng.normal(size=6) + 0.1), "logistic", "l2", 1e-3, row_norm_bound=1.0)


ARGUMENTS = dict(epsilon=1.0, delta=1e-5, passes=3, step=1.0, clip=1.0, batch_size=40)


def test_a_release_is_within_its_epsilon_by_dp_accountings_rdp_accountant(problem):
    """The release's integers: sensitivity S and noise s grid units. dp-accounting's own RDP
    accountant (Wang, Balle and Kasiviswanathan's Theorem 27 under replace-one), given the
    multiplier s / S as the distance multiplier it reads, certifies at most the run's epsilon."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a release on the grid warns of nothing
        run = privcd.fit(problem, "dp-sgd", **ARGUMENTS)
    noise = run.info["grid_noise"]
    steps = round(ARGUMENTS["passes"] * problem.n_samples / ARGUMENTS["batch_size"])
    event = dp_event.SelfComposedDpEvent(dp_event.SampledWithoutReplacementDpEvent(
        problem.n_samples, ARGUMENTS["batch_size"],
        dp_event.GaussianDpEvent(noise["sigma_units"] / noise["sensitivity_units"])), steps)
    accountant = rdp.RdpAccountant(neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE)
    epsilon = accountant.compose(event).get_epsilon(ARGUMENTS["delta"])
    assert epsilon <= run.epsilon <= ARGUMENTS["epsilon"]
    assert epsilon >= 0.99 * ARGUMENTS["epsilon"]  # not over-noised
    assert run.info["noise_std"] == pytest.approx(run.info["grid_spacing"] * noise["sigma_units"])
    assert run.info["grid_spacing"] * noise["grid_ratio"] == 2 * ARGUMENTS["clip"]


def test_a_release_descends(problem):
    run = privcd.fit(problem, "dp-sgd", **{**ARGUMENTS, "epsilon": 5.0})
    start = problem.objective(np.zeros(problem.n_features))
    assert problem.objective(run.w) < start - 0.1


def test_the_grid_kernel_takes_the_experiments_steps_up_to_its_grid(problem):
    """Same batches (the same stream), a fine grid and one unit of noise: the iterate is the
    noise-free experiment's to within the grid's rounding and noise."""
    steps, batch_size, step, clip = 200, 20, 0.5, 1.0
    checkpoints = np.array([steps], dtype=np.int64)
    common = (*row_arrays(problem), problem.y, problem.row_norms, problem.loss.code, problem.penalty.code, problem.lam,
              step, clip)
    exact, _ = dp_sgd(*common, 0.0, batch_size, SAMPLE_WITHOUT_REPLACEMENT, steps, checkpoints, kernel_key(3, 0),
                      kernel_key(3, 1), np.zeros(problem.n_features))
    spacing = 2 * clip / 2**30
    on_grid, _ = dp_sgd_on_grid(*common, spacing, 1, batch_size, steps, checkpoints, kernel_key(3, 0), kernel_rng(3),
                                np.zeros(problem.n_features))
    assert np.linalg.norm(on_grid - exact) < 1e-6
    assert np.linalg.norm(exact) > 0.1


def test_a_poisson_release_is_refused_naming_the_alternatives(problem):
    with pytest.raises(ValueError, match=r"sampling='poisson'.*use sampling='without-replacement'.*give a seed"):
        privcd.fit(problem, "dp-sgd", sampling="poisson", **ARGUMENTS)
    assert np.isfinite(privcd.fit(problem, "dp-sgd", sampling="poisson", seed=0, **ARGUMENTS).objective)
