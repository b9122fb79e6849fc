"""DP-SkGD (dp-skgd Algorithm 1): special cases, sketch distributions, noise models, calibration, options."""
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from numba import njit
from scipy.stats import norm

import privcd
from numpy_reference import dp_skgd as numpy_dp_skgd
from privcd.algorithms import dp_skgd
from privcd.algorithms.base import Settings, coordinate_thresholds, kernel_rng
from privcd.kernels.dp_skgd import SKETCH_IMPORTANCE, SKETCH_TAU_NICE, SKETCH_UNIFORM, dp_skgd as dp_skgd_kernel, draw_block
from privcd.kernels.layout import column_arrays
from privcd.optimum import solve_nonprivate
from conftest import make_problem

INF = float("inf")
SKETCH_OPTIONS = {
    "uniform": {},
    "tau-nice": {"sketch": "tau-nice", "tau": 4},
    "importance": {"sketch": "importance", "probabilities": np.linspace(0.05, 0.6, 15)},
    "importance-smoothness": {"sketch": "importance", "probabilities": "smoothness", "tau": 3},
    "full": {"sketch": "full"},
}


def safe_step(problem):
    """``1 / lambda_max(D^-1/2 X^T X D^-1/2)``, D = diag(||X_j||^2): then ``c M`` with c = 1 / step
    bounds the Hessian of f, so every block satisfies dp-skgd Assumption 4 with ``M / step``."""
    X = problem.X.toarray() if problem.is_sparse else problem.X
    scaled = X / np.sqrt((X**2).sum(axis=0))
    return 1.0 / np.linalg.eigvalsh(scaled.T @ scaled)[-1]


@pytest.mark.parametrize("inner", [None, 6])
@pytest.mark.parametrize("loss,penalty,lam", [("logistic", "l2", 0.01), ("squared", "l1", 0.05)])
def test_uniform_sketch_is_dp_cd_bit_for_bit(loss, penalty, lam, inner, storage):
    problem = make_problem(loss, penalty, lam, sparse=storage == "sparse")
    common = dict(epsilon=0.7, delta=1e-5, passes=3, step=0.8, clip=2.0, seed=11, inner_iterations=inner)
    cd = privcd.fit(problem, "dp-cd", **common)
    sk = privcd.fit(problem, "dp-skgd", sketch="uniform", **common)
    assert cd.noise_multiplier > 0
    assert sk.noise_multiplier == cd.noise_multiplier and sk.epsilon == cd.epsilon
    assert np.array_equal(sk.w, cd.w)
    assert sk.history["objective"].equals(cd.history["objective"])
    assert sk.history["iteration"].equals(cd.history["iteration"])


@pytest.mark.parametrize("noise", ["isotropic", "coordinate"])
@pytest.mark.parametrize("loss,penalty,lam", [("logistic", "l2", 0.01), ("squared", "l1", 0.05)])
def test_full_sketch_is_noisy_gradient_descent_with_coordinate_steps(loss, penalty, lam, noise):
    """Direct numpy version of w <- prox(w - (step / M) (clipped grad f(w) + eta)), with eta rebuilt
    from the kernel's generator ``kernel_rng(seed)``, whose PCG64 stream numba draws from too (p
    normals per iteration)."""
    problem = make_problem(loss, penalty, lam)
    step, clip, seed = 0.2, 1.5, 4
    run = privcd.fit(problem, "dp-skgd", epsilon=2.0, delta=1e-5, passes=25, step=step, clip=clip, seed=seed,
                     sketch="full", noise=noise)
    X, y, n, p = problem.X, problem.y, problem.n_samples, problem.n_features
    M = problem.loss.curvature * (X**2).sum(axis=0) / n
    C = np.sqrt(M / M.sum()) * clip
    z = run.noise_multiplier
    sigma = z * 2 / n * np.sqrt((C**2).sum()) * np.ones(p) if noise == "isotropic" else z * np.sqrt(p) * 2 * C / n
    gamma = step / M
    rng = kernel_rng(seed)
    w = np.zeros(p)
    for _ in range(25):
        u = X @ w
        derivative = -y / (1 + np.exp(y * u)) if loss == "logistic" else 2 * (u - y)
        gradient = np.clip(derivative[:, None] * X, -C, C).mean(axis=0)
        x = w - gamma * (gradient + sigma * rng.standard_normal(p))
        w = np.sign(x) * np.maximum(np.abs(x) - gamma * lam, 0) if penalty == "l1" else x / (1 + gamma * lam)
    assert run.noise_multiplier > 0 and np.abs(w).max() > 1e-3
    np.testing.assert_allclose(run.w, w, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("sketch", ["uniform", "tau-nice", "importance", "full"])
@pytest.mark.parametrize("loss,penalty,lam", [("logistic", "l2", 0.01), ("squared", "l1", 0.05)])
def test_non_private_limit_reaches_the_optimum(sketch, loss, penalty, lam):
    """(Not "importance-smoothness": on these imbalanced columns its smallest p_j is 2e-4, and the
    rate of Theorem 8 scales with p_min.)"""
    problem = make_problem(loss, penalty, lam)
    _, f_star = solve_nonprivate(problem)
    run = privcd.fit(problem, "dp-skgd", epsilon=INF, passes=3000, step=safe_step(problem), clip=INF, seed=0,
                     checkpoints=1, **SKETCH_OPTIONS[sketch])
    assert (run.objective - f_star) / f_star < 1e-8


@pytest.mark.parametrize("sketch", ["tau-nice", "importance-smoothness", "full"])
def test_determinism_and_storage(sketch):
    dense = make_problem("logistic", "l1", 0.02)
    sparse = privcd.Problem(sp.csc_matrix(dense.X), dense.y, "logistic", "l1", 0.02)
    common = dict(epsilon=1.0, delta=1e-5, passes=3, step=0.3, clip=1.0, noise="coordinate", **SKETCH_OPTIONS[sketch])
    a = privcd.fit(dense, "dp-skgd", seed=2, **common)
    b = privcd.fit(dense, "dp-skgd", seed=2, **common)
    c = privcd.fit(sparse, "dp-skgd", seed=2, **common)
    d = privcd.fit(dense, "dp-skgd", seed=3, **common)
    assert np.array_equal(a.w, b.w) and a.history["objective"].equals(b.history["objective"])
    assert np.array_equal(c.w, a.w)  # dense and sparse sums in one order (kernels/partial_sums.py)
    assert not np.array_equal(a.w, d.w)


@njit(cache=True)
def _draw_blocks(sketch, tau, probabilities, p, count, rng):
    order = np.arange(p)
    block = np.empty(p, dtype=np.int64)
    member = np.zeros((count, p), dtype=np.bool_)
    top = probabilities.max()
    for t in range(count):
        m = draw_block(sketch, tau, probabilities, top, order, block, rng)
        for b in range(m):
            member[t, block[b]] = True
    return member


def test_tau_nice_blocks_are_uniform_subsets_of_size_tau():
    p, tau, count = 7, 3, 40_000
    member = _draw_blocks(SKETCH_TAU_NICE, tau, np.zeros(p), p, count, np.random.default_rng(0))
    assert np.all(member.sum(axis=1) == tau)
    # inclusion tau / p and pair inclusion tau (tau - 1) / (p (p - 1)), within 5 standard errors
    single, pair = tau / p, tau * (tau - 1) / (p * (p - 1))
    assert np.all(np.abs(member.mean(axis=0) - single) < 5 * np.sqrt(single * (1 - single) / count))
    pairs = (member[:, :, None] & member[:, None, :]).mean(axis=0)[np.triu_indices(p, 1)]
    assert np.all(np.abs(pairs - pair) < 5 * np.sqrt(pair * (1 - pair) / count))


@pytest.mark.parametrize("probabilities", [[1.0, 0.05, 0.5, 0.25, 0.8], [0.3, 0.05, 0.2, 0.3, 0.1]])
def test_importance_blocks_include_coordinates_independently(probabilities):
    probabilities = np.array(probabilities)
    count = 40_000
    member = _draw_blocks(SKETCH_IMPORTANCE, 0, probabilities, 5, count, np.random.default_rng(1))
    se = np.sqrt(probabilities * (1 - probabilities) / count)
    assert np.all(np.abs(member.mean(axis=0) - probabilities) <= 5 * se + 1e-12)
    for a, b in [(0, 3), (2, 4), (1, 2)]:
        both = probabilities[a] * probabilities[b]
        assert abs((member[:, a] & member[:, b]).mean() - both) < 5 * np.sqrt(both * (1 - both) / count)
    size = member.sum(axis=1)
    assert abs(size.var() - np.sum(probabilities * (1 - probabilities))) < 0.03


def test_smoothness_probabilities_water_fill():
    M = np.array([50.0, 1.0, 2.0, 0.0, 3.0, 4.0])
    P = dp_skgd.smoothness_probabilities(M, 3)
    assert P.sum() == pytest.approx(3.0, rel=1e-12)
    assert P[0] == 1.0 and P[3] == 0.0  # capped; all-zero feature never drawn
    rest = [1, 2, 4, 5]
    np.testing.assert_allclose(P[rest], 2.0 * M[rest] / M[rest].sum(), rtol=1e-12)
    uncapped = dp_skgd.smoothness_probabilities(np.array([1.0, 2.0, 3.0, 4.0]), 2)
    np.testing.assert_allclose(uncapped, [0.2, 0.4, 0.6, 0.8], rtol=1e-12)


PASS_CASES = [({}, 15.0), ({"sketch": "tau-nice", "tau": 4}, 15 / 4),
              ({"sketch": "importance", "probabilities": np.full(15, 0.2)}, 5.0), ({"sketch": "full"}, 1.0)]


@pytest.mark.parametrize("options,expected", PASS_CASES, ids=["uniform", "tau-nice", "importance", "full"])
def test_one_pass_is_p_coordinate_updates_in_expectation(options, expected):
    problem = make_problem("logistic", "l2", 0.01)
    assert dp_skgd.iterations_per_pass(problem, {**dp_skgd.OPTIONS, **options}) == pytest.approx(expected)
    run = privcd.fit(problem, "dp-skgd", epsilon=1.0, delta=1e-5, passes=4, step=0.5, clip=1.0, seed=0, **options)
    assert run.history["iteration"].iloc[-1] == round(4 * expected)
    assert run.history["passes"].iloc[-1] == pytest.approx(4, rel=1e-12)


@pytest.mark.parametrize("noise", ["isotropic", "coordinate"])
@pytest.mark.parametrize("sketch", ["tau-nice", "importance", "full"])
def test_each_release_is_a_gaussian_mechanism_of_multiplier_z(sketch, noise):
    """For any block S, sum_{j in S} (Delta_j / sigma_j(S))^2 = 1 / z^2 with Delta_j = 2 C_j / n: the
    Renyi divergence of the release is that of one Gaussian of multiplier z (dp-skgd Corollary 13)."""
    problem = make_problem("logistic", "l2", 0.01)
    run = privcd.fit(problem, "dp-skgd", epsilon=1.0, delta=1e-5, passes=2, step=0.5, clip=3.0, noise=noise,
                     seed=0, **SKETCH_OPTIONS[sketch])
    z, n = run.noise_multiplier, problem.n_samples
    delta = 2 * coordinate_thresholds(problem.M, 3.0) / n
    rng = np.random.default_rng(0)
    for size in (1, 2, 5, 15):
        S = rng.choice(15, size, replace=False)
        sigma = run.info["noise_std"][S] * np.sqrt(run.info["noise_weights"][S].sum())
        assert np.sum((delta[S] / sigma) ** 2) == pytest.approx(1 / z**2, rel=1e-12)


def test_coordinate_noise_costs_less_than_isotropic_noise():
    """Lemma 17's noise term E ||C eta||^2_{P M^-1} = sum_j E[sigma_j(S)^2 1{j in S}] / (p_j M_j)
    (exact for the full sketch) is smaller for the coordinate model (Cauchy-Schwarz)."""
    problem = make_problem("logistic", "l2", 0.01)
    terms = {}
    for noise in ("isotropic", "coordinate"):
        run = privcd.fit(problem, "dp-skgd", epsilon=1.0, delta=1e-5, passes=2, step=0.5, clip=3.0,
                         sketch="full", noise=noise, seed=0)
        sigma2 = run.info["noise_std"] ** 2 * run.info["noise_weights"].sum()
        terms[noise] = np.sum(sigma2 / problem.M)
    assert terms["coordinate"] < 0.5 * terms["isotropic"]


@pytest.mark.parametrize("sketch", ["tau-nice", "full"])
def test_calibrated_epsilon_is_at_most_the_target_and_close_to_it(sketch):
    """Independent check: T Gaussians of multiplier z are one Gaussian of multiplier z / sqrt(T), whose
    exact delta(epsilon) (Balle and Wang 2018) is below the target delta at the run's epsilon."""
    problem = make_problem("logistic", "l2", 0.01)
    target, delta = 0.8, 1e-6
    run = privcd.fit(problem, "dp-skgd", epsilon=target, delta=delta, passes=3, step=0.5, clip=1.0,
                     seed=0, **SKETCH_OPTIONS[sketch])
    T = run.history["iteration"].iloc[-1]
    sigma = run.noise_multiplier / math.sqrt(T)
    exact_delta = norm.cdf(0.5 / sigma - run.epsilon * sigma) - math.exp(run.epsilon) * norm.cdf(
        -0.5 / sigma - run.epsilon * sigma)
    assert run.epsilon <= target and run.epsilon > 0.95 * target
    assert exact_delta <= delta


BAD_OPTIONS = [
    (dict(sketch="blocks"), "sketch='blocks'"),
    (dict(sketch="tau-nice"), "tau is required"),
    (dict(sketch="tau-nice", tau=16), "tau=16 exceeds the number of features p=15"),
    (dict(sketch="tau-nice", tau=0), "tau=0 must be an integer >= 1"),
    (dict(sketch="tau-nice", tau=2.5), "tau=2.5 must be an integer >= 1"),
    (dict(sketch="uniform", tau=2), "tau=2 is not used with sketch='uniform'"),
    (dict(sketch="full", probabilities=np.ones(15)), "probabilities= is only used with sketch='importance'"),
    (dict(sketch="importance"), "sketch='importance' needs probabilities="),
    (dict(sketch="importance", probabilities=np.full(14, 0.5)), r"probabilities has shape \(14,\); expected \(15,\)"),
    (dict(sketch="importance", probabilities=np.r_[0.0, np.full(14, 0.5)]), r"probabilities\[0\]=0.0 is outside \(0, 1\]"),
    (dict(sketch="importance", probabilities=np.r_[np.full(14, 0.5), 1.2]), r"probabilities\[14\]=1.2 is outside"),
    (dict(sketch="importance", probabilities=np.r_[np.full(14, 0.5), np.nan]), r"probabilities\[14\]=nan is outside"),
    (dict(sketch="importance", probabilities="largest"), "probabilities='largest' is not accepted"),
    (dict(sketch="importance", probabilities="smoothness"), "tau is required"),
    (dict(sketch="importance", probabilities="smoothness", tau=20), "tau=20 exceeds"),
    (dict(sketch="importance", probabilities=np.full(15, 0.5), tau=3), "tau=3 is not used"),
    (dict(noise="laplace"), "noise='laplace'"),
]


@pytest.mark.parametrize("options,match", BAD_OPTIONS, ids=[m for _, m in BAD_OPTIONS])
def test_bad_options_are_named_before_the_kernel_runs(options, match, monkeypatch):
    problem = make_problem("logistic", "l2", 0.01)

    def kernel_must_not_run(*args, **kwargs):
        raise AssertionError("the kernel ran before the options were checked")

    monkeypatch.setattr(dp_skgd, "run", kernel_must_not_run)
    with pytest.raises(ValueError, match=match):
        privcd.fit(problem, "dp-skgd", epsilon=1.0, delta=1e-5, passes=1, step=0.5, clip=1.0, **options)


@pytest.mark.parametrize("sketch", ["uniform", "tau-nice", "importance", "full"])
def test_numpy_reference_follows_the_same_random_path(sketch):
    """The plain numpy DP-SkGD replays ``kernel_rng(seed)`` in the kernel's order (block, then one
    normal per block entry), so it reaches the same iterate up to the rounding of the gradient sums."""
    problem = make_problem("logistic", "l1", 0.02)
    settings = Settings(epsilon=1.0, delta=1e-5, passes=8, step=0.5, clip=1.0)
    plan = dp_skgd.plan(problem, settings, {**dp_skgd.OPTIONS, "noise": "coordinate", "inner_iterations": 7,
                                            **SKETCH_OPTIONS[sketch]})
    w, _, _ = dp_skgd.run(problem, plan, 6)
    assert np.count_nonzero(w) > 5
    np.testing.assert_allclose(numpy_dp_skgd.run(problem, plan, 6), w, rtol=1e-10, atol=1e-14)


_CACHE_STATE_SCRIPT = """
import sys, numpy as np, privcd
sys.path.insert(0, 'tests')
from conftest import make_problem
problem = make_problem('squared', 'l1', 0.05)
common = dict(epsilon=0.7, delta=1e-5, passes=3, step=0.8, clip=2.0, seed=11)
cd = privcd.fit(problem, 'dp-cd', **common)
if sys.argv[1] == 'both':
    sk = privcd.fit(problem, 'dp-skgd', sketch='uniform', **common)
    sys.stdout.write(str(np.array_equal(sk.w, cd.w)))
"""


@pytest.mark.slow
def test_uniform_sketch_is_dp_cd_bit_for_bit_whatever_numba_cache_holds(tmp_path):
    """DP-CD loaded from numba's disk cache and DP-SkGD compiled in this process still agree to the
    bit. (Machine code of the SIMD sums depends on where LLVM inlines them, and numba only inlines
    functions compiled in the same process: a kernel that let the summation loop be inlined into
    both callers broke this when one caller came from the cache.)"""
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    subprocess.run([sys.executable, "-c", _CACHE_STATE_SCRIPT, "dp-cd-only"], cwd=root, env=env, check=True)
    out = subprocess.run([sys.executable, "-c", _CACHE_STATE_SCRIPT, "both"], cwd=root, env=env, check=True,
                         capture_output=True, text=True)
    assert out.stdout == "True"


def test_block_kernel_refuses_the_uniform_sketch_which_is_dp_cd():
    """The uniform sketch runs DP-CD's kernel (one compiled copy of the step loop); the block kernel
    raises rather than silently running another sketch for it."""
    problem = make_problem("squared", "l1", 0.05)
    p = problem.n_features
    ones = np.ones(p)
    with pytest.raises(ValueError, match="uniform sketch is DP-CD"):
        dp_skgd_kernel(*column_arrays(problem), problem.y, problem.loss.code, problem.penalty.code, problem.lam,
                       SKETCH_UNIFORM, 0, np.full(p, 1.0 / p), ones, ones, ones, ones, 3, 0,
                       np.array([0], dtype=np.int64), kernel_rng(0), np.zeros(p))
