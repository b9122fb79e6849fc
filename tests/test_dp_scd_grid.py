"""DP-SCD's release on grids (privcd.privacy.grid_dual, privcd.kernels.dp_scd_grid): the duals' and the
shared vector's sensitivities in grid units against adversarial neighbours computed as the kernel
computes them, the lazy sums of discrete Gaussians against their bound, the release's epsilon by
dp-accounting's own RDP accountant, the kernel's descent, and what a release refuses."""
import math
import warnings
from fractions import Fraction

import dp_accounting
import numpy as np
import pytest
from dp_accounting import dp_event, rdp

import privcd
from privcd.algorithms.base import kernel_key, kernel_rng
from privcd.algorithms.dp_scd import ROW_NORM_TOLERANCE
from privcd.kernels.dp_scd import dp_scd
from privcd.kernels.dp_scd_grid import dp_scd_on_grid
from privcd.kernels.layout import row_arrays
from privcd.kernels.spectral import row_sq_norms
from privcd.privacy.grid_dual import SMALLEST_DUAL_SIGMA, dual_grid_noise, dual_grid_ratio, dual_sigma, lazy_excess
from privcd.privacy.grid_sum import sum_grid_ratio, sum_sensitivity_units


def batch_sum(rows, updates):
    """The kernel's ``G``: terms ``fl(zeta_k x_k)`` added into zeros record after record."""
    total = np.zeros(rows.shape[1])
    for row, zeta in zip(rows, updates):
        total = total + zeta * row
    return total


@pytest.mark.parametrize("batch_size, p", [(1, 1), (1, 300), (40, 8), (400, 50)])
def test_the_shared_sensitivity_bounds_adversarial_neighbours(batch_size, p):
    """Rows at the checked bound ``1 + 1e-12``, updates at the clip; the neighbour's record flips its
    update's sign. Their integers ``rint(G / h_v)`` never pass S_v, which is within sqrt(p) + 3 of K_v."""
    rng = np.random.default_rng(batch_size * 1000 + p)
    clip = 0.7
    ratio = sum_grid_ratio(p, 1.0)
    sensitivity = sum_sensitivity_units(batch_size, p, ratio, 1 + Fraction(ROW_NORM_TOLERANCE))
    assert sensitivity <= ratio + math.sqrt(p) + 3
    spacing = 2 * clip / ratio
    worst = 0.0
    for _ in range(200):
        rows = rng.normal(size=(batch_size, p))
        rows *= (1 + ROW_NORM_TOLERANCE) / np.linalg.norm(rows, axis=1, keepdims=True)
        updates = clip * rng.choice([-1.0, 1.0], size=batch_size) * rng.uniform(0.5, 1.0, size=batch_size)
        updates[-1] = clip
        other = updates.copy()
        other[-1] = -clip
        here = np.rint(batch_sum(rows, updates) / spacing)
        there = np.rint(batch_sum(rows, other) / spacing)
        worst = max(worst, float(np.linalg.norm(here - there)))
    assert worst <= sensitivity
    assert worst > 0.9 * ratio  # the flipped record does move the sum by about K units


@pytest.mark.parametrize("ratio", [1, 2, 64, 1024])
def test_the_dual_sensitivity_is_the_grid_ratio_and_is_reached(ratio):
    """``|zeta| <= C`` gives integers in [-K/2, K/2]: the extremes are K apart from K = 2 on (at K = 1,
    +-1/2 round to 0, half to even), and no update in between rounds outside them."""
    clip = 0.3
    spacing = 2 * clip / ratio
    assert np.rint(clip / spacing) - np.rint(-clip / spacing) == (ratio if ratio > 1 else 0)
    updates = np.random.default_rng(ratio).uniform(-clip, clip, size=10_000)
    assert np.all(np.abs(np.rint(updates / spacing)) <= ratio / 2)


def discrete_gaussian_pmf(variance, support):
    log = -support.astype(float) ** 2 / (2.0 * variance)
    return np.exp(log - np.logaddexp.reduce(log))


@pytest.mark.parametrize("gaps", [2, 3, 5])
def test_lazily_summed_discrete_gaussians_are_within_the_bound_of_one(gaps):
    """At s = 1 (eta = 1e-4, visible in float64) ``g`` convolved N_Z(0, 1) are within ``r^(g-1)`` of
    N_Z(0, g) pointwise, ``r = (1 + eta) / (1 - eta)``, eta = 2 sum_k exp(-2 pi^2 rho k^2), rho = 1/2;
    and they do differ (the bound is not about identical laws)."""
    support = np.arange(-60, 61)
    one = discrete_gaussian_pmf(1, support)
    summed = one
    for _ in range(gaps - 1):
        summed = np.convolve(summed, one)
    reach = np.arange(-60 * gaps, 60 * gaps + 1)
    inside = np.abs(reach) <= 12
    ratio = summed[inside] / discrete_gaussian_pmf(gaps, reach)[inside]
    eta = 2 * sum(math.exp(-2 * math.pi**2 * 0.5 * k * k) for k in range(1, 10))
    bound = (gaps - 1) * math.log((1 + eta) / (1 - eta))
    assert np.max(np.abs(np.log(ratio))) <= bound
    assert np.max(np.abs(np.log(ratio))) > 1e-3 * bound


def test_the_lazy_excess_is_negligible_from_the_smallest_dual_sigma():
    assert lazy_excess(SMALLEST_DUAL_SIGMA, 10**9, 10**9) < 1e-250
    assert lazy_excess(1, 1000, 1000) > 1e-2  # at s = 1 it would count


def test_the_dual_grid_is_coarsened_to_keep_lazy_variances_in_the_samplers_range():
    assert dual_grid_ratio(1.0, 100) == 1024
    coarse = dual_grid_ratio(20.0, 100_000)
    assert coarse < 1024 and (100_000 - 1) * dual_sigma(20.0, coarse) ** 2 <= 2**40
    assert (100_000 - 1) * dual_sigma(20.0, 2 * coarse) ** 2 > 2**40
    with pytest.raises(ValueError, match=r"fewer passes or larger batches"):
        dual_grid_ratio(1e4, 10**9)


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 6))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return privcd.Problem(X, np.sign(X @ rng.normal(size=6) + 0.1), "hinge", "l2", 1e-2, row_norm_bound=1.0)


ARGUMENTS = dict(epsilon=1.0, delta=1e-5, passes=3, step=1.0, clip=1.0, batch_size=40)


def test_a_release_is_within_its_epsilon_by_dp_accountings_rdp_accountant(problem):
    """The release's two blocks of integers, the duals' (S_a, s_a) and v's (S_v, s_v), are the
    continuous Gaussian's RDP at multiplier ``(S_a^2 / s_a^2 + S_v^2 / s_v^2)^(-1/2)``; dp-accounting's
    own RDP accountant (Wang, Balle and Kasiviswanathan's Theorem 27 under replace-one) certifies at
    most the run's epsilon with it, and at least 0.99 of the target."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run = privcd.fit(problem, "dp-scd", **ARGUMENTS)
    noise = run.info["grid_noise"]
    assert noise["dual_sensitivity_units"] == noise["dual_ratio"]
    multiplier = ((noise["dual_sensitivity_units"] / noise["dual_sigma_units"]) ** 2
                  + (noise["shared_sensitivity_units"] / noise["shared_sigma_units"]) ** 2) ** -0.5
    steps = round(ARGUMENTS["passes"] * problem.n_samples / ARGUMENTS["batch_size"])
    event = dp_event.SelfComposedDpEvent(dp_event.SampledWithoutReplacementDpEvent(
        problem.n_samples, ARGUMENTS["batch_size"], dp_event.GaussianDpEvent(multiplier)), steps)
    accountant = rdp.RdpAccountant(neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE)
    epsilon = accountant.compose(event).get_epsilon(ARGUMENTS["delta"])
    assert epsilon <= noise["epsilon"] * (1 + 1e-9) and noise["epsilon"] <= run.epsilon <= ARGUMENTS["epsilon"]
    assert epsilon >= 0.99 * ARGUMENTS["epsilon"]  # not over-noised
    assert run.info["grid_spacing"] * noise["shared_ratio"] == 2 * ARGUMENTS["clip"]
    assert noise["lazy_excess"] < 1e-250


@pytest.mark.parametrize("loss", ["hinge", "logistic", "squared"])
def test_a_release_descends(problem, loss):
    """At lam = 0.1 and batches of 200 (v's noise, summed over the steps, is divided by lam N). Over 20
    releases a side, the largest ratio to F(0) was 0.69 (hinge), 0.94 (logistic), 0.52 (squared), and
    their medians 0.66, 0.90, 0.49."""
    task = privcd.Problem(problem.X, problem.y, loss, "l2", 0.1, row_norm_bound=1.0)
    arguments = {**ARGUMENTS, "epsilon": 50.0, "passes": 2, "batch_size": 200}
    objectives = [task.objective(privcd.fit(task, "dp-scd", **arguments).w) for _ in range(3)]
    assert np.median(objectives) < 0.96 * task.objective(np.zeros(task.n_features))


@pytest.mark.parametrize("loss", ["hinge", "squared"])
def test_the_grid_kernel_converges_where_the_noise_free_kernel_does(problem, loss):
    """Fine grids and one unit of noise: after 60 passes the grid kernel's objective is the noise-free
    experiment kernel's to 1e-6 (the two draw different batches: the experiment's stream also feeds
    its normals), so the updates, their rounding and the lazy noise are right."""
    task = privcd.Problem(problem.X, problem.y, loss, "l2", 1e-2, row_norm_bound=1.0)
    rows = row_arrays(task)
    squares = row_sq_norms(*rows, task.n_samples)
    batch_size, steps = 40, 60 * task.n_samples // 40
    checkpoints = np.array([steps], dtype=np.int64)
    common = (task.n_features, task.y, squares, task.loss.code, task.lam, 1.0)
    exact = dp_scd(*rows, *common, 0.0, batch_size, float(batch_size), False, 1e-4, False, False, steps, checkpoints,
                   kernel_key(3))[0]
    spacing = 2.0 / 2**30
    on_grid, _ = dp_scd_on_grid(*rows, *common, batch_size, float(batch_size), 1e-4, False, spacing, 1, spacing, 1,
                                steps, checkpoints, kernel_key(3), kernel_rng(3))
    assert task.objective(on_grid) == pytest.approx(task.objective(exact), rel=1e-6)
    assert task.objective(exact) < 0.9 * task.objective(np.zeros(task.n_features))


@pytest.mark.parametrize("algorithm, options, named", [("seqdp-scd", {}, "sequential updates"),
                                                       ("dp-scd", {"noise": "batch-duals"}, "noise='batch-duals'")])
def test_releases_without_a_grid_argument_are_refused_naming_the_alternatives(problem, algorithm, options, named):
    with pytest.raises(ValueError, match=rf"{named}.*use dp-scd with noise='all-duals'.*give a seed"):
        privcd.fit(problem, algorithm, **options, **ARGUMENTS)
    assert np.isfinite(privcd.fit(problem, algorithm, seed=0, **options, **ARGUMENTS).objective)


def test_the_release_record_holds_the_grids_and_no_noise_free_value(problem):
    run = privcd.fit(problem, "dp-scd", **ARGUMENTS)
    assert run.mode == "release" and run.seconds is None
    assert run.info["noise_std"] == pytest.approx(run.info["grid_spacing"] * run.info["grid_noise"]["shared_sigma_units"])
    assert dual_grid_noise(round(ARGUMENTS["passes"] * problem.n_samples / ARGUMENTS["batch_size"]),
                           batch_size=40, n=problem.n_samples, n_features=problem.n_features,
                           row_tolerance=ROW_NORM_TOLERANCE, epsilon=run.epsilon,
                           delta=run.delta) == privcd.privacy.grid_dual.DualGridNoise(**run.info["grid_noise"])
