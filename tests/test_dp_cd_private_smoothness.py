"""DP-CD-P (dp-cd Section 5.2, Appendix F eq. (126)): budget split, Laplace scale, limits, options."""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linprog
from scipy.stats import kstest, laplace

import privcd
from privcd.algorithms import dp_cd
from privcd.algorithms.base import coordinate_step_sizes, coordinate_thresholds, kernel_rng
from privcd.algorithms.private_smoothness import (knapsack_ratio, laplace_release, private_smoothness,
                                                  smoothness_mechanism, split_budget)
from privcd.kernels.dispatch import loss_variant
from privcd.kernels.dp_cd import ORDER_UNIFORM, dp_cd as dp_cd_kernel, step_variant
from privcd.kernels.layout import column_arrays, objective_codes
from conftest import make_problem

HYPER = dict(passes=2, step=0.5, clip=1.0)


@pytest.mark.parametrize("epsilon,share", [(1.0, 0.1), (0.3, 0.25), (7.0, 0.5)])
def test_the_split_adds_up_to_at_most_epsilon(epsilon, share):
    problem = make_problem("logistic", "l2", 0.01)
    run = privcd.fit(problem, "dp-cd", epsilon=epsilon, delta=1e-5, seed=0, smoothness="private",
                     smoothness_budget=share, **HYPER)
    public = privcd.fit(problem, "dp-cd", epsilon=epsilon, delta=1e-5, seed=0, **HYPER)
    info = run.info
    assert info["smoothness_epsilon"] == pytest.approx(share * epsilon, rel=1e-15)
    assert 0.95 * (epsilon - info["smoothness_epsilon"]) < info["optimisation_epsilon"]
    assert info["optimisation_epsilon"] <= epsilon - info["smoothness_epsilon"]
    assert run.epsilon == info["smoothness_epsilon"] + info["optimisation_epsilon"] <= epsilon
    assert run.delta == 1e-5
    # less budget for the optimisation, more noise
    assert run.noise_multiplier > public.noise_multiplier


def test_split_budget_never_exceeds_epsilon():
    for epsilon in np.random.default_rng(0).uniform(0.01, 20, size=2000):
        for share in (0.1, 0.3, 1 / 3, 0.7):
            smoothness, rest = split_budget(float(epsilon), share)
            assert smoothness + rest <= epsilon and rest > 0
    assert split_budget(float("inf"), 0.1) == (float("inf"), float("inf"))


def test_bounds_and_laplace_scale_follow_section_6_1_and_eq_126():
    problem = make_problem("squared", "l1", 0.1)
    X, n, p = problem.X, problem.n_samples, problem.n_features
    mechanism = smoothness_mechanism(problem, 0.1)
    bounds = 2.0 * (2 * np.abs(X).max(axis=0)) ** 2  # squared loss: curvature 2
    np.testing.assert_allclose(mechanism.bounds, bounds, rtol=1e-15)
    np.testing.assert_allclose(mechanism.scale, 2 * bounds * p / (n * 0.1), rtol=1e-15)
    # the crude bound never clips the data it came from: the noiseless release is M itself
    np.testing.assert_allclose(mechanism.clipped_mean, problem.M, rtol=1e-13)


@pytest.mark.parametrize("sparse", [False, True])
def test_with_public_feature_bounds_every_pair_of_neighbours_costs_at_most_epsilon(sparse):
    """The privacy of eq. (126) with public bounds B_j, checked from first principles: on two datasets
    differing in one record (within the bounds), the Laplace scales are the same (nothing read off the
    data) and the privacy loss of the product of Laplace densities, ``sum_j |mean_j - mean'_j| /
    lambda_j``, is at most epsilon', the largest change a record can make (a zero record against one
    at the bounds) reaching epsilon' / 2 (the module docstring's factor 2). Without public bounds the
    scales move with the replaced record: the data-read bound leaks."""
    rng = np.random.default_rng(4)
    n, p, epsilon = 50, 4, 0.3
    bound = np.array([1.0, 0.5, 2.0, 3.0])
    X = rng.uniform(-1, 1, size=(n, p)) * bound
    X[0] = 0.0
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    extremes = [bound, -bound, 0.3 * bound, np.array([bound[0], 0.0, -bound[2], 0.1])]
    worst = 0.0
    for record in extremes:
        neighbour = X.copy()
        neighbour[0] = record
        pair = [privcd.Problem(sp.csc_matrix(Z) if sparse else Z, y, "logistic", feature_bound=bound)
                for Z in (X, neighbour)]
        a, b = (smoothness_mechanism(problem, epsilon) for problem in pair)
        np.testing.assert_array_equal(a.scale, b.scale)
        np.testing.assert_allclose(a.scale, 2 * 0.25 * bound**2 * p / (n * epsilon), rtol=1e-15)
        # the released means, independently: (1/n) sum_i min(c x_ij^2, c B_j^2) with c = 1/4
        for mechanism, Z in ((a, X), (b, neighbour)):
            np.testing.assert_allclose(mechanism.clipped_mean, 0.25 * np.minimum(Z**2, bound**2).mean(axis=0),
                                       rtol=1e-14)
        loss = np.sum(np.abs(a.clipped_mean - b.clipped_mean) / a.scale)
        assert loss <= epsilon
        worst = max(worst, loss)
    assert worst == pytest.approx(epsilon / 2, rel=1e-12)
    leaky = [privcd.Problem(Z, y, "logistic") for Z in (X, np.vstack([bound, X[1:]]))]
    assert not np.array_equal(smoothness_mechanism(leaky[0], epsilon).scale, smoothness_mechanism(leaky[1], epsilon).scale)


@pytest.mark.parametrize("bounds, budget", [([0.25] * 6, 0.5), ([1.0, 0.5, 2.0, 3.0], 2.2), ([1.0, 0.5, 2.0], 100.0),
                                            ([0.0, 0.3, 0.3, 4.0], 0.45), ([2.0, 1.0], 0.5)])
def test_the_knapsack_ratio_is_the_linear_programs_optimum(bounds, budget):
    """S = max sum_j u_j / b_j over 0 <= u_j <= b_j, sum_j u_j <= budget, by scipy's LP solver."""
    bounds = np.array(bounds)
    positive = bounds[bounds > 0]
    program = linprog(-1.0 / positive, A_ub=np.ones((1, positive.size)), b_ub=[budget],
                      bounds=list(zip(np.zeros(positive.size), positive)), method="highs")
    assert knapsack_ratio(bounds, budget) == pytest.approx(-program.fun, rel=1e-12)
    assert knapsack_ratio(bounds, budget) >= -program.fun


@pytest.mark.parametrize("sparse", [False, True])
def test_with_a_public_row_norm_every_pair_of_neighbours_costs_at_most_epsilon(sparse):
    """With a public bound R on the rows' norms the p releases are one vector release of L1
    sensitivity 2 c R^2 / n, checked from first principles: the scales are the same on neighbours,
    b_j S / (n eps') with S the knapsack ratio (p times below eq. (126)'s with equal bounds), and
    the privacy loss sum_j |mean_j - mean'_j| / lambda_j is at most epsilon', reached by two records
    at the bound along different axes."""
    rng = np.random.default_rng(5)
    n, p, epsilon, R = 60, 5, 0.4, 1.0
    X = rng.normal(size=(n, p))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True)) / R
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    worst = 0.0
    for first, second in [(R * np.eye(p)[0], R * np.eye(p)[1]), (X[3], -X[3]), (np.full(p, R / np.sqrt(p)), 0 * X[0])]:
        pair = []
        for record in (first, second):
            Z = X.copy()
            Z[0] = record
            pair.append(privcd.Problem(sp.csc_matrix(Z) if sparse else Z, y, "logistic", feature_bound=R,
                                       row_norm_bound=R))
        a, b = (smoothness_mechanism(problem, epsilon) for problem in pair)
        np.testing.assert_array_equal(a.scale, b.scale)
        np.testing.assert_allclose(a.scale, 0.25 * R**2 * 2 / (n * epsilon), rtol=1e-14)
        loss = np.sum(np.abs(a.clipped_mean - b.clipped_mean) / a.scale)
        assert loss <= epsilon
        worst = max(worst, loss)
    assert worst == pytest.approx(epsilon, rel=1e-12)
    eq_126 = smoothness_mechanism(privcd.Problem(X, y, "logistic", feature_bound=R), epsilon).scale
    np.testing.assert_allclose(eq_126 / a.scale, p, rtol=1e-14)


def test_dense_and_sparse_storage_give_the_same_mechanism():
    dense = make_problem("logistic", "l2", 0.01)
    sparse = privcd.Problem(sp.csr_matrix(dense.X), dense.y, "logistic", "l2", 0.01)
    a, b = smoothness_mechanism(dense, 0.2), smoothness_mechanism(sparse, 0.2)
    np.testing.assert_array_equal(a.bounds, b.bounds)
    np.testing.assert_allclose(a.clipped_mean, b.clipped_mean, rtol=1e-14)
    np.testing.assert_array_equal(a.scale, b.scale)


def test_laplace_noise_has_the_scale_2_b_p_over_n_epsilon():
    problem = make_problem("logistic", "l2", 0.01, n=80, p=6)
    mechanism = smoothness_mechanism(problem, 0.05)
    draws = np.array([laplace_release(mechanism, seed) for seed in range(3000)]) - mechanism.clipped_mean
    unit = draws / mechanism.scale
    m = unit.shape[0]
    # E|Lap(1)| = 1 with standard deviation 1: the mean absolute value is within 4 standard errors
    assert np.all(np.abs(np.abs(unit).mean(axis=0) - 1) < 4 / np.sqrt(m))
    assert np.all(np.abs(unit.mean(axis=0)) < 4 * np.sqrt(2 / m))
    assert kstest(unit.ravel(), laplace.cdf).pvalue > 1e-3
    # a different scale would be detected: the same draws rescaled by 1.1 fail the test
    assert kstest(1.1 * unit.ravel(), laplace.cdf).pvalue < 1e-3


def test_low_estimates_are_raised_to_the_noise_scale():
    problem = make_problem("logistic", "l2", 0.01)
    mechanism = smoothness_mechanism(problem, 1e-3)
    raw = np.array([laplace_release(mechanism, seed) for seed in range(50)])
    floored = np.array([private_smoothness(mechanism, seed) for seed in range(50)])
    assert (raw <= 0).any()
    np.testing.assert_array_equal(floored, np.maximum(raw, mechanism.scale))
    assert np.all(floored > 0)


def test_a_huge_epsilon_recovers_the_true_constants():
    problem = make_problem("squared", "l1", 0.1)
    run = privcd.fit(problem, "dp-cd", epsilon=1e9, delta=1e-5, seed=3, smoothness="private", **HYPER)
    np.testing.assert_allclose(run.info["M_private"], problem.M, rtol=1e-6)
    no_noise = privcd.fit(problem, "dp-cd", epsilon=float("inf"), seed=3, smoothness="private", passes=2, step=0.5,
                          clip=float("inf"))
    np.testing.assert_allclose(no_noise.info["M_private"], problem.M, rtol=1e-13)
    assert no_noise.epsilon == float("inf") and no_noise.noise_multiplier == 0


def test_the_private_constants_drive_steps_thresholds_and_noise():
    """The kernel runs with gamma_j = step / M_j^priv, C_j = sqrt(M_j^priv / tr M^priv) clip and
    sigma_j = z 2 C_j / n: rerunning the DP-CD kernel with those arrays gives the same bits."""
    problem = make_problem("logistic", "l1", 0.02)
    run = privcd.fit(problem, "dp-cd", epsilon=2.0, delta=1e-5, seed=5, smoothness="private", **HYPER)
    M = run.info["M_private"]
    assert not np.allclose(M, problem.M)
    thresholds = coordinate_thresholds(M, HYPER["clip"])
    noise_std = run.noise_multiplier * 2 * thresholds / problem.n_samples
    np.testing.assert_array_equal(run.info["thresholds"], thresholds)
    np.testing.assert_array_equal(run.info["noise_std"], noise_std)
    T = run.history["iteration"].iloc[-1]
    w, _ = dp_cd_kernel(column_arrays(problem), problem.y, objective_codes(problem),
                        (coordinate_step_sizes(M, HYPER["step"]), thresholds, noise_std), T, 0,
                        np.array([0, T], dtype=np.int64), kernel_rng(5), np.zeros(problem.n_features),
                        ORDER_UNIFORM, 0, *step_variant(problem.is_sparse, problem.n_samples, 1),
                        *loss_variant(problem.loss.code))
    np.testing.assert_array_equal(run.w, w)


def test_the_estimates_depend_on_the_seed_only():
    problem = make_problem("logistic", "l2", 0.01)
    runs = [privcd.fit(problem, "dp-cd", epsilon=1.0, delta=1e-5, seed=s, smoothness="private", **HYPER)
            for s in (1, 1, 2)]
    np.testing.assert_array_equal(runs[0].info["M_private"], runs[1].info["M_private"])
    np.testing.assert_array_equal(runs[0].w, runs[1].w)
    assert not np.array_equal(runs[0].info["M_private"], runs[2].info["M_private"])


def test_public_smoothness_is_unchanged_by_the_option():
    problem = make_problem("logistic", "l2", 0.01)
    default = privcd.fit(problem, "dp-cd", epsilon=1.0, delta=1e-5, seed=4, **HYPER)
    public = privcd.fit(problem, "dp-cd", epsilon=1.0, delta=1e-5, seed=4, smoothness="public",
                        smoothness_budget=0.5, **HYPER)
    np.testing.assert_array_equal(default.w, public.w)
    assert default.epsilon == public.epsilon and "M_private" not in public.info


BAD_OPTIONS = [
    (dict(smoothness="estimated"), "smoothness='estimated'"),
    (dict(smoothness=None), "smoothness=None"),
    (dict(smoothness="private", smoothness_budget=0.0), "smoothness_budget=0.0"),
    (dict(smoothness="private", smoothness_budget=1.0), "smoothness_budget=1.0"),
    (dict(smoothness="private", smoothness_budget=-0.1), "smoothness_budget=-0.1"),
    (dict(smoothness="private", smoothness_budget=float("nan")), "smoothness_budget=nan"),
    (dict(smoothness="private", smoothness_budget="10%"), "smoothness_budget='10%'"),
]


@pytest.mark.parametrize("options,match", BAD_OPTIONS, ids=[m for _, m in BAD_OPTIONS])
def test_bad_options_are_named_before_the_kernel_runs(options, match, monkeypatch):
    problem = make_problem("logistic", "l2", 0.01)

    def kernel_must_not_run(*args, **kwargs):
        raise AssertionError("the kernel ran before the options were checked")

    monkeypatch.setattr(dp_cd, "run", kernel_must_not_run)
    with pytest.raises(ValueError, match=match):
        privcd.fit(problem, "dp-cd", epsilon=1.0, delta=1e-5, **HYPER, **options)


@pytest.mark.parametrize("public, warns", [({"row_norm_bound": 1.0}, True), ({"feature_bound": 1.0}, False),
                                           ({"constants": "data"}, False)])
def test_bounds_read_from_the_data_are_named_by_a_warning(public, warns):
    """DP-CD-P reads b_j off X without a public feature bound (and constants not declared public),
    and publishes them: a DataDependentBoundsWarning says so; public bounds give none."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 3))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    problem = privcd.Problem(X, np.sign(X[:, 0]), "logistic", "l2", 1e-3, **public)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        privcd.fit(problem, "dp-cd", epsilon=1.0, delta=1e-5, passes=1, step=0.5, clip=1.0, smoothness="private",
                   seed=0)
    named = [w for w in caught if issubclass(w.category, privcd.DataDependentBoundsWarning)
             and "smoothness_bounds" in str(w.message)]
    assert bool(named) == warns
