"""DP-CD (dp-cd Algorithm 1): convergence, averaging, clipping sensitivity, noise scale."""
import numpy as np
import pytest
import scipy.sparse as sp

import privcd
from numpy_reference import dp_cd as numpy_dp_cd
from privcd.algorithms import dp_cd as dp_cd_algorithm
from privcd.algorithms.base import Settings, coordinate_thresholds, kernel_rng
from privcd.kernels.dispatch import loss_variant
from privcd.kernels.dp_cd import ORDER_UNIFORM, dp_cd, step_variant
from privcd.kernels.layout import column_arrays, objective_codes
from privcd.kernels.linalg import add_scaled_column, clipped_coordinate_gradient_sum, lagged_clipped_gradient_sum
from privcd.kernels.partial_sums import scratch
from privcd.losses import LOSSES
from conftest import make_problem

INF = float("inf")


@pytest.mark.parametrize("loss,penalty,lam", [("squared", "l1", 0.5), ("logistic", "l2", 0.01),
                                              ("logistic", "l1", 0.02)])
def test_noise_free_unclipped_dp_cd_reaches_the_optimum(loss, penalty, lam, storage):
    problem = make_problem(loss, penalty, lam, sparse=storage == "sparse")
    _, f_star = privcd.solve_nonprivate(problem)
    run = privcd.fit(problem, "dp-cd", epsilon=INF, passes=3000, step=1.0, clip=INF, seed=0)
    assert (run.objective - f_star) / f_star < 1e-8


@pytest.mark.parametrize("loss", ["logistic", "squared"])
def test_dense_and_sparse_x_give_the_same_bits(loss):
    """Both storages sum the clipped gradient in one fixed order (kernels/partial_sums.py): a row a
    sparse column does not store adds nothing to its partial sum, so the runs agree bit for bit."""
    dense = make_problem(loss, "l1", 0.01, n=300)
    sparse = privcd.Problem(sp.csc_matrix(dense.X), dense.y, loss, "l1", 0.01)
    common = dict(epsilon=1.0, delta=1e-5, passes=4, step=0.5, clip=1.0, seed=4)
    a, b = privcd.fit(dense, "dp-cd", **common), privcd.fit(sparse, "dp-cd", **common)
    assert np.array_equal(a.w, b.w) and a.history["objective"].equals(b.history["objective"])


def test_averaging_returns_the_mean_of_the_inner_iterates():
    """With K = all iterations, the output is (1/K) sum_{k=1..K} theta^k of the same random path."""
    problem = make_problem("squared", "l1", 0.1)
    p = problem.n_features
    n_iterations = 7 * p
    steps = np.full(p, 0.5) / problem.M
    thresholds = coordinate_thresholds(problem.M, 3.0)
    noise = 0.01 * np.ones(p)
    args = (column_arrays(problem), problem.y, objective_codes(problem), (steps, thresholds, noise), n_iterations)
    every = np.arange(n_iterations + 1, dtype=np.int64)
    variant = step_variant(problem.is_sparse, problem.n_samples, 1) + loss_variant(problem.loss.code)
    _, path = dp_cd(*args, 0, every, kernel_rng(11), np.zeros(p), ORDER_UNIFORM, 0, *variant)
    averaged, _ = dp_cd(*args, n_iterations, np.array([0, n_iterations], dtype=np.int64), kernel_rng(11),
                        np.zeros(p), ORDER_UNIFORM, 0, *variant)
    np.testing.assert_allclose(averaged, path[1:].mean(axis=0), rtol=1e-12, atol=1e-15)
    assert not np.allclose(averaged, path[-1])


def test_inner_iterations_round_up_and_average():
    problem = make_problem("logistic", "l2", 0.01)
    run = privcd.fit(problem, "dp-cd", epsilon=1.0, delta=1e-5, passes=1.0, step=0.5, clip=1.0, seed=0,
                     inner_iterations=4)
    assert run.history["iteration"].iloc[-1] % 4 == 0
    assert run.history["iteration"].iloc[-1] >= problem.n_features


def test_thresholds_follow_section_5_1():
    """C_j = sqrt(M_j / tr M) C, so with M~ = p M / tr M: ||(C_j)_j||_{M~^-1} = sqrt(sum_j C_j^2 / M~_j) = C
    (the sensitivity 2C of clipped DP-CD in Section 5.1)."""
    problem = make_problem("logistic", "l2", 0.01)
    thresholds = coordinate_thresholds(problem.M, 2.5)
    scaled_M = problem.n_features * problem.M / problem.M.sum()
    assert np.sqrt(np.sum(thresholds**2 / scaled_M)) == pytest.approx(2.5)
    np.testing.assert_allclose(thresholds / thresholds[0], np.sqrt(problem.M / problem.M[0]))


@pytest.mark.parametrize("loss", ["logistic", "squared"])
def test_clipped_coordinate_gradient_has_the_claimed_sensitivity(loss):
    """Replacing one record changes (1/n) sum_i clip(g_ij, C_j) by at most 2 C_j / n, and by that much
    for an adversarial record."""
    rng = np.random.default_rng(0)
    problem = make_problem(loss, None, 0.0)
    n, p = problem.n_samples, problem.n_features
    thresholds = coordinate_thresholds(problem.M, 0.3)
    worst = np.zeros(p)
    for trial in range(30):
        w = rng.normal(size=p)
        X = problem.X.copy()
        y = problem.y.copy()
        i = rng.integers(n)
        X[i] = rng.normal(size=p) * 1e3 * (trial % 2)
        y[i] = -y[i] if loss == "logistic" else 1e4 * rng.normal()
        neighbour = privcd.Problem(X, y, loss)
        for j in range(p):
            a = clipped_coordinate_gradient_sum(*column_arrays(problem), j, problem.linear_predictor(w),
                                                problem.y, problem.loss.code, thresholds[j], scratch(n)) / n
            b = clipped_coordinate_gradient_sum(*column_arrays(neighbour), j, neighbour.linear_predictor(w),
                                                neighbour.y, problem.loss.code, thresholds[j], scratch(n)) / n
            worst[j] = max(worst[j], abs(a - b) / (2 * thresholds[j] / n))
    assert worst.max() <= 1 + 1e-12
    assert worst.max() > 0.99  # the bound is attained: clipping is what limits it


def test_injected_noise_has_the_calibrated_scale():
    """At w = 0 with y = 0 the squared loss has zero gradient, so one step moves w_j by -gamma_j eta_j."""
    rng = np.random.default_rng(1)
    n, p = 200, 4
    X = rng.normal(size=(n, p)) * np.array([0.1, 1.0, 5.0, 20.0])
    problem = privcd.Problem(X, np.zeros(n), "squared")
    draws = {j: [] for j in range(p)}
    for seed in range(3000):
        run = privcd.fit(problem, "dp-cd", epsilon=1.0, delta=1e-5, passes=1 / p, step=0.3, clip=2.0, seed=seed)
        j = int(np.flatnonzero(run.w)[0])
        draws[j].append(-run.w[j] * problem.M[j] / 0.3)
    expected = run.noise_multiplier * 2 * coordinate_thresholds(problem.M, 2.0) / n
    np.testing.assert_allclose(expected, run.info["noise_std"], rtol=1e-12)
    for j in range(p):
        sample = np.array(draws[j])
        assert len(sample) > 600
        # the sample standard deviation is within 4 standard errors (sd / sqrt(2 m)) of sigma_j
        assert abs(sample.std(ddof=1) / expected[j] - 1) < 4 / np.sqrt(2 * len(sample))
        assert abs(sample.mean()) < 4 * expected[j] / np.sqrt(len(sample))


def test_zero_columns_never_move():
    X = np.random.default_rng(2).normal(size=(50, 3))
    X[:, 1] = 0.0
    problem = privcd.Problem(sp.csc_matrix(X), np.sign(X[:, 0]) + (X[:, 0] == 0), "logistic", "l1", 0.01)
    run = privcd.fit(problem, "dp-cd", epsilon=1.0, delta=1e-4, passes=5, step=1.0, clip=1.0, seed=0)
    assert run.w[1] == 0.0 and np.all(np.isfinite(run.w))


@pytest.mark.parametrize("options", [{}, {"inner_iterations": 10}, {"smoothness": "private"}],
                         ids=["last-iterate", "averaged", "dp-cd-p"])
@pytest.mark.parametrize("loss,penalty,lam", [("logistic", "l2", 0.01), ("squared", "l1", 0.01)])
def test_numpy_reference_follows_the_same_random_path(loss, penalty, lam, options):
    """The plain numpy DP-CD replays ``kernel_rng(seed)`` in the kernel's order: same coordinates,
    same noise, so the same iterate up to the rounding of the gradient sums."""
    problem = make_problem(loss, penalty, lam)
    settings = Settings(epsilon=1.0, delta=1e-5, passes=8, step=0.5, clip=1.0)
    plan = dp_cd_algorithm.plan(problem, settings, {**dp_cd_algorithm.OPTIONS, **options})
    w, _, _ = dp_cd_algorithm.run(problem, plan, 6)
    assert np.count_nonzero(w) > 5
    np.testing.assert_allclose(numpy_dp_cd.run(problem, plan, 6), w, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("loss", sorted(LOSSES))
def test_every_loss_takes_one_lane(loss):
    """loss_variant marks one lane: the logistic and squared losses their own literal loops, the
    others the loop of a runtime code."""
    markers = loss_variant(LOSSES[loss].code)
    assert sum(marker is True for marker in markers) == 1 and markers.count(None) == 2
    assert (markers[0] is True, markers[1] is True) == (loss == "logistic", loss == "squared")


@pytest.mark.parametrize("loss", ["logistic", "squared", "huber"])
def test_lagged_gradient_applies_the_lag_then_sums_at_the_updated_residuals(loss, storage):
    """z + delta X[:, lag_j] comes out with the bits of add_scaled_column, and the sum is the clipped
    gradient at the updated z, bit for bit, in the loss's lane (loss_variant; huber: the runtime
    code's); delta = 0 leaves z alone."""
    problem = make_problem(loss, None, 0.0, sparse=storage == "sparse")
    arrays = column_arrays(problem)
    thresholds = coordinate_thresholds(problem.M, 0.5)
    z0 = problem.linear_predictor(np.random.default_rng(3).normal(size=problem.n_features))
    for lag_j, delta, j in [(2, 0.37, 5), (4, -1.5, 4), (0, 0.0, 7)]:
        expected_z = z0.copy()
        add_scaled_column(*arrays, lag_j, delta, expected_z)
        expected = clipped_coordinate_gradient_sum(*arrays, j, expected_z, problem.y, problem.loss.code,
                                                   thresholds[j], scratch(problem.n_samples))
        z = z0.copy()
        got = lagged_clipped_gradient_sum(*arrays, lag_j, delta, j, z, problem.y, problem.loss.code,
                                          thresholds[j], scratch(problem.n_samples), *loss_variant(problem.loss.code))
        np.testing.assert_array_equal(z.view(np.int64), expected_z.view(np.int64))
        assert got == expected
