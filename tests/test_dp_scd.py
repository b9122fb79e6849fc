"""DP-SCD and SEQDP-SCD (dp-scd Algorithms 1 and 3): the dual updates solve eq. (7), the
non-private limit reaches the optimum of privcd's F (certified by the duality gap), the noise is
scaled to the replace-one sensitivity of a mini-batch release, calibration, and clear errors."""
import math

import numba
import numpy as np
import pytest
import scipy.optimize
import scipy.sparse as sp
import dp_accounting
from dp_accounting import dp_event, rdp

import privcd
from privcd.algorithms import dp_scd, seqdp_scd
from privcd.algorithms.base import Settings, kernel_key
from privcd.kernels.dispatch import loss_conjugate
from privcd.kernels.dp_scd import batch_update, dp_scd as dp_scd_kernel, dual_coordinate_update
from privcd.kernels.dp_sgd import SAMPLE_WITHOUT_REPLACEMENT, draw_batch
from privcd.kernels.gaussian import PIECE_PAIRS, fill_standard_normal
from privcd.kernels.layout import row_arrays
from privcd.losses import get_loss
from numpy_reference import dp_scd as numpy_dp_scd

INF = math.inf
LOSSES = ["squared", "logistic", "hinge"]
MODULES = {"dp-scd": dp_scd, "seqdp-scd": seqdp_scd}


def unit_problem(loss, lam=0.02, *, n=200, p=10, density=1.0, sparse=False, seed=0):
    """Rows of imbalanced raw scale, then scaled to unit norm (zero rows stay zero)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) * rng.lognormal(sigma=1.0, size=p)
    X[rng.random((n, p)) > density] = 0.0
    norms = np.linalg.norm(X, axis=1)
    X[norms > 0] /= norms[norms > 0, None]
    score = X @ (3.0 * rng.normal(size=p))
    if loss == "squared":
        y = score + 0.1 * rng.normal(size=n)
    else:
        y = np.where(score + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    return privcd.Problem(sp.csr_matrix(X) if sparse else X, y, loss, "l2", lam)


def subproblem(loss, alpha, y, z, q):
    """eq. (7) times N, up to a constant: ``l*(-(alpha + zeta)) + z zeta + q zeta^2 / 2``."""
    code = get_loss(loss).code
    return lambda zeta: loss_conjugate(code, -(alpha + zeta), y) + z * zeta + 0.5 * q * zeta * zeta


def dual_value(problem, alpha):
    """``-F*(alpha)`` of dp-scd eq. (3): a lower bound on ``min F`` for any feasible alpha."""
    n, lam = problem.n_samples, problem.lam
    theta = np.asarray(problem.X.T @ alpha).ravel() / (lam * n)
    conjugates = [loss_conjugate(problem.loss.code, -a, y) for a, y in zip(alpha, problem.y)]
    return -np.mean(conjugates) - 0.5 * lam * theta @ theta


def plan_of(name, problem, *, epsilon=INF, delta=1e-5, passes=1.0, clip=INF, **options):
    module = MODULES[name]
    settings = Settings(epsilon=epsilon, delta=delta, passes=passes, step=1.0, clip=clip)
    return module.plan(problem, settings, {**module.OPTIONS, **options})


# -- the coordinate updates --------------------------------------------------------------------

@pytest.mark.parametrize("loss", ["squared", "hinge"])
def test_closed_form_updates_minimise_the_subproblem(loss):
    """Against scipy on random instances, including alpha pushed outside the dual domain by noise."""
    rng = np.random.default_rng(0)
    for _ in range(200):
        y = rng.normal() if loss == "squared" else rng.choice([-1.0, 1.0])
        alpha, z = rng.normal(scale=2.0), rng.normal(scale=2.0)
        q = rng.choice([0.0, 1e-3, 1.0, 50.0]) if loss == "hinge" else rng.choice([1e-3, 1.0, 50.0])
        phi = subproblem(loss, alpha, y, z, q)
        zeta = dual_coordinate_update(get_loss(loss).code, alpha, y, z, q, 1e-4)
        if loss == "hinge":  # the domain is y (alpha + zeta) in [0, 1]
            low, high = sorted((-alpha, y - alpha))
            best = scipy.optimize.minimize_scalar(phi, bounds=(low, high), method="bounded",
                                                  options={"xatol": 1e-12})
            assert low - 1e-15 <= zeta <= high + 1e-15
        else:
            best = scipy.optimize.minimize_scalar(phi, method="brent", tol=1e-12)
        assert phi(zeta) <= best.fun + 1e-12 * (1 + abs(best.fun))
        assert zeta == pytest.approx(best.x, abs=1e-6 * (1 + abs(best.x)))


def test_logistic_update_is_one_newton_step():
    """Inside the box the update is -phi'(0) / phi''(0) (derivatives by finite differences) and decreases phi."""
    rng = np.random.default_rng(1)
    code = get_loss("logistic").code
    h = 1e-5
    for _ in range(200):
        y = rng.choice([-1.0, 1.0])
        alpha = y * rng.uniform(0.05, 0.95)
        z, q = rng.normal(), rng.choice([0.0, 0.3, 3.0])
        phi = subproblem("logistic", alpha, y, z, q)
        slope = (phi(h) - phi(-h)) / (2 * h)
        curvature = (phi(h) - 2 * phi(0.0) + phi(-h)) / h**2
        newton = -slope / curvature
        zeta = dual_coordinate_update(code, alpha, y, z, q, 1e-4)
        if 1e-4 < y * (alpha + newton) < 1 - 1e-4:
            assert zeta == pytest.approx(newton, rel=1e-4, abs=1e-7)
        else:
            assert min(abs(y * (alpha + zeta) - 1e-4), abs(y * (alpha + zeta) - (1 - 1e-4))) < 1e-15
        assert phi(zeta) <= phi(0.0) + 1e-12


def test_repeated_logistic_newton_steps_reach_the_minimiser_quadratically():
    """With q = 0 eq. (7) does not depend on the anchor alpha, so repeating the update is Newton's method."""
    code = get_loss("logistic").code
    y, z = -1.0, 1.3
    target = 1.0 / (1.0 + math.exp(y * z))  # t* = sigmoid(-y z)
    phi = subproblem("logistic", 0.0, y, z, 0.0)
    best = scipy.optimize.minimize_scalar(phi, bounds=(-1.0, 0.0), method="bounded", options={"xatol": 1e-12})
    assert y * best.x == pytest.approx(target, abs=1e-8)
    alpha, errors = y * 1e-4, []
    for _ in range(40):
        alpha += dual_coordinate_update(code, alpha, y, z, 0.0, 1e-12)
        errors.append(abs(y * alpha - target))
    assert errors[-1] < 1e-15
    close = [e for e in errors if 1e-12 < e < 1e-2]
    assert all(after <= 10 * before**2 for before, after in zip(close, close[1:]))


# -- the non-private limit ---------------------------------------------------------------------

@pytest.mark.parametrize("name,loss,batch_size,passes", [
    ("dp-scd", "squared", 1, 60), ("dp-scd", "squared", 10, 150),
    ("dp-scd", "logistic", 1, 60), ("dp-scd", "logistic", 10, 150),
    ("dp-scd", "hinge", 1, 150), ("dp-scd", "hinge", 10, 800),
    ("seqdp-scd", "squared", 10, 60), ("seqdp-scd", "logistic", 10, 60), ("seqdp-scd", "hinge", 10, 150),
])
def test_non_private_limit_is_certified_by_the_duality_gap(name, loss, batch_size, passes):
    problem = unit_problem(loss)
    plan = plan_of(name, problem, passes=passes, batch_size=batch_size)
    theta, snapshots, alpha, v = dp_scd.run_kernel(problem, plan, seed=0)
    n, lam = problem.n_samples, problem.lam
    np.testing.assert_allclose(v, problem.X.T @ alpha, atol=1e-12 * (1 + np.abs(v).max()))
    np.testing.assert_array_equal(theta, v / (lam * n))
    np.testing.assert_array_equal(snapshots[-1], theta)
    # F(theta) - D(alpha) with D(alpha) = -F*(alpha) <= F*: certifies the returned theta itself
    certificate = problem.objective(theta) - dual_value(problem, alpha)
    assert -1e-12 <= certificate <= 1e-9 * problem.objective(theta)


def test_theta_minimises_privcds_ridge_objective_and_the_authors_scaling():
    """Our F = (1/n) sum (z - y)^2 + (lam/2)||w||^2; the authors' ridge uses (z - y)^2 / 2 with lambda = lam / 2."""
    problem = unit_problem("squared", lam=0.05)
    X, y, n, lam = problem.X, problem.y, problem.n_samples, problem.lam
    run = privcd.fit(problem, "dp-scd", epsilon=INF, delta=1e-5, passes=100, step=1.0, clip=INF, batch_size=1)
    ours = np.linalg.solve(2 * X.T @ X / n + lam * np.eye(X.shape[1]), 2 * X.T @ y / n)
    authors = np.linalg.solve(X.T @ X / n + (lam / 2) * np.eye(X.shape[1]), X.T @ y / n)
    np.testing.assert_allclose(run.w, ours, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(ours, authors, rtol=1e-12)
    gradient = problem.gradient(run.w) + lam * run.w
    assert np.linalg.norm(gradient) < 1e-8


@pytest.mark.parametrize("update_from", ["noisy", "projected"])
@pytest.mark.parametrize("noise", ["all-duals", "batch-duals"])
@pytest.mark.parametrize("name", ["dp-scd", "seqdp-scd"])
@pytest.mark.parametrize("loss", LOSSES)
def test_numpy_reference_replays_the_kernels_path(name, loss, noise, update_from):
    """The numpy loop draws the kernel's batches and noise from the numpy twins of its stream, so a
    private run agrees with the kernel to rounding (and a run with another seed does not)."""
    problem = unit_problem(loss, n=60)
    plan = plan_of(name, problem, epsilon=1.0, passes=5, clip=0.5, batch_size=7, noise=noise,
                   update_from=update_from)
    assert plan.kernel["noise_std"] > 0.1
    theta, _, _, _ = dp_scd.run_kernel(problem, plan, seed=3)
    np.testing.assert_allclose(numpy_dp_scd.run(problem, plan, seed=3), theta, rtol=1e-9, atol=1e-12)
    assert np.abs(numpy_dp_scd.run(problem, plan, seed=4) - theta).max() > 1e-3


@pytest.mark.parametrize("loss, alpha, y, domain", [("hinge", 1.7, 1.0, (0.0, 1.0)), ("hinge", 0.4, -1.0, (0.0, 1.0)),
                                                    ("logistic", -0.3, 1.0, (1e-4, 1 - 1e-4)),
                                                    ("logistic", -1.6, -1.0, (1e-4, 1 - 1e-4))])
def test_an_update_from_the_projection_keeps_the_noise_of_the_dual(loss, alpha, y, domain):
    """dp-scd's code (``alpha_n = _enforce_alpha(alpha_n)``, then the subproblem from there) against
    privcd's default, for a dual that noise has pushed out of the conjugate's domain: from the
    projection, ``alpha + zeta`` is the authors' new value (the projected start plus its step), so
    it keeps the noise, ``alpha - projection``; from the noisy value, ``alpha + zeta`` lies in the
    domain. Without a bound on zeta, both solve eq. (7) from their starts."""
    problem = unit_problem(loss, n=1, p=3)
    v, lam_n, scale = np.array([0.3, -0.2, 0.5]), 0.7, 1.0
    z = float(problem.X[0] @ v) / lam_n
    q = scale * float(problem.row_norms[0] ** 2) / lam_n
    projection = y * min(domain[1], max(domain[0], y * alpha))
    zetas = {}
    for from_projected in (False, True):
        state_alpha, state_v = np.array([alpha]), v.copy()
        batch_update(*row_arrays(problem), np.array([y]), problem.row_norms**2, problem.loss.code, lam_n, scale, INF,
                     1e-4, from_projected, False, np.array([0]), 1, state_alpha, state_v, zetas.setdefault(from_projected,
                                                                                                          np.empty(1)))
        np.testing.assert_allclose(state_v, v + zetas[from_projected][0] * problem.X[0], rtol=1e-12)
    assert domain[0] <= y * (alpha + zetas[False][0]) <= domain[1]
    expected = dual_coordinate_update(problem.loss.code, projection, y, z, q, 1e-4)
    assert zetas[True][0] == pytest.approx(expected, rel=1e-12)
    noise_kept = (alpha + zetas[True][0]) - (projection + expected)
    assert noise_kept == pytest.approx(alpha - projection, rel=1e-12) and abs(noise_kept) > 0.1


@pytest.mark.parametrize("loss", ["squared", "hinge"])
def test_without_noise_both_update_rules_are_the_same_run(loss):
    """Without noise every dual stays in its domain, where the projection changes nothing. (The
    logistic duals start at 0, outside [box, 1 - box], so there the first updates differ.)"""
    problem = unit_problem(loss, n=80)
    runs = [privcd.fit(problem, "dp-scd", epsilon=INF, passes=3, step=1.0, clip=0.4, seed=2, batch_size=8,
                       update_from=rule) for rule in ("noisy", "projected")]
    np.testing.assert_array_equal(runs[0].w, runs[1].w)


def test_update_from_is_checked():
    with pytest.raises(ValueError, match="update_from.*'noisy'"):
        privcd.fit(unit_problem("hinge"), "dp-scd", epsilon=1.0, delta=1e-5, passes=1, step=1.0, clip=0.4,
                   update_from="clipped")


# -- privacy -----------------------------------------------------------------------------------

def release(problem, batch, alpha, v, clip, lam_n, sequential, batch_size, from_projected=False):
    """``[alpha_B; v]`` after the noiseless part of one mini-batch (Algorithm 1 lines 6-11, Algorithm 3 lines 5-10)."""
    alpha, v = alpha.copy(), v.copy()
    scale = 1.0 if sequential else float(batch_size)
    batch_update(*row_arrays(problem), problem.y, problem.row_norms**2, problem.loss.code, lam_n, scale, clip,
                 1e-4, from_projected, sequential, batch, len(batch), alpha, v, np.empty(len(batch)))
    return np.concatenate([alpha[batch], v])


def neighbour(problem, k, x, y_k):
    X, y = problem.X.copy(), problem.y.copy()
    X[k], y[k] = x, y_k
    return privcd.Problem(X, y, problem.loss.name, "l2", problem.lam)


@pytest.mark.parametrize("from_projected", [False, True])
@pytest.mark.parametrize("name", ["dp-scd", "seqdp-scd"])
def test_release_sensitivity_on_neighbouring_datasets(name, from_projected):
    """Replacing one record changes [alpha_B; v] by at most the sensitivity the noise is scaled to,
    with either update rule (``update_from``; the duals here are often outside their domain)."""
    sequential = name == "seqdp-scd"
    rng = np.random.default_rng(2)
    L = 5
    worst = 0.0
    for trial in range(150):
        loss = LOSSES[trial % 3]
        problem = unit_problem(loss, n=30, p=6, seed=trial)
        n, p = problem.n_samples, problem.n_features
        batch = rng.choice(n, size=L, replace=False)
        k = batch[rng.integers(L)]
        x = rng.normal(size=p)
        x /= np.linalg.norm(x)
        y_k = rng.normal() if loss == "squared" else -problem.y[k]
        other = neighbour(problem, k, x, y_k)
        alpha, v = rng.normal(scale=0.7, size=n), rng.normal(scale=rng.choice([0.01, 1.0, 10.0]), size=p)
        clip, lam_n = rng.choice([1e-3, 0.1, 1.0]), rng.choice([0.1, 1.0, 10.0])
        a = release(problem, batch, alpha, v, clip, lam_n, sequential, L, from_projected)
        b = release(other, batch, alpha, v, clip, lam_n, sequential, L, from_projected)
        if not sequential:  # independent updates: only the replaced record's alpha moves
            assert np.array_equal(np.delete(a[:L], list(batch).index(k)), np.delete(b[:L], list(batch).index(k)))
        worst = max(worst, np.linalg.norm(a - b) / MODULES[name].sensitivity(clip, L))
    assert worst <= 1 + 1e-12
    if not sequential:
        assert worst > 0.9


def test_dp_scd_sensitivity_is_attained():
    """Flipping the label of a saturated hinge update moves alpha_k by 2C and v by 2C x_k: 2 sqrt(2) C."""
    problem = unit_problem("hinge", n=30, p=6)
    k, clip, L = 3, 0.01, 4
    batch = np.array([7, k, 11, 20])
    other = neighbour(problem, k, problem.X[k], -problem.y[k])
    zeros_n, zeros_p = np.zeros(problem.n_samples), np.zeros(problem.n_features)
    a = release(problem, batch, zeros_n, zeros_p, clip, 1.0, False, L)
    b = release(other, batch, zeros_n, zeros_p, clip, 1.0, False, L)
    assert np.linalg.norm(a - b) == pytest.approx(dp_scd.sensitivity(clip, L), rel=1e-12)
    assert dp_scd.sensitivity(clip, L) == pytest.approx(2 * math.sqrt(2) * clip)


def test_noise_is_added_to_alpha_on_the_batch_and_to_every_entry_of_v():
    """With C = 0 the updates vanish, so alpha and v hold the noise alone: N(0, std^2) on alpha_B and on v."""
    problem = unit_problem("squared", n=50, p=7)
    std, L = 0.37, 5
    alpha_draws, v_draws = [], []
    for sequential in (False, True):
        for seed in range(200):
            _, _, alpha, v = dp_scd_kernel(*row_arrays(problem), problem.n_features, problem.y, problem.row_norms**2,
                                           problem.loss.code, problem.lam, 0.0, std, L, 1.0, sequential, 1e-4,
                                           False, False, 1, np.array([0, 1]), kernel_key(seed))
            assert np.count_nonzero(alpha) == L
            alpha_draws.append(alpha[alpha != 0])
            v_draws.append(v)
    for draws in (np.concatenate(alpha_draws), np.concatenate(v_draws)):
        assert abs(draws.std(ddof=1) / std - 1) < 4 / np.sqrt(2 * len(draws))
        assert abs(draws.mean()) < 4 * std / np.sqrt(len(draws))


@pytest.mark.parametrize("iterations", [1, 7, 40])
def test_noise_on_every_dual_is_every_steps_normal_lazily(iterations):
    """With C = 0 and noise on every dual, after T batches every alpha_j and every v_k is the sum of
    T normals of std, N(0, T std^2), whether the record was in many batches, few or none; the
    lazily summed noise of different records and of one record at different times is independent."""
    problem = unit_problem("squared", n=30, p=5)
    std, L = 0.37, 4
    alphas, vs = [], []
    for seed in range(400):
        _, _, alpha, v = dp_scd_kernel(*row_arrays(problem), problem.n_features, problem.y, problem.row_norms**2,
                                       problem.loss.code, problem.lam, 0.0, std, L, 1.0, False, 1e-4, False,
                                       True, iterations, np.array([0, iterations]), kernel_key(seed))
        alphas.append(alpha)
        vs.append(v)
    alphas, vs = np.array(alphas), np.array(vs)
    scale = std * math.sqrt(iterations)
    for draws in (alphas.ravel(), vs.ravel()):
        assert abs(draws.std(ddof=1) / scale - 1) < 4 / np.sqrt(2 * len(draws))
    correlation = np.corrcoef(alphas.T)[np.triu_indices(problem.n_samples, 1)]
    assert np.abs(correlation).max() < 5 / np.sqrt(len(alphas))


def test_wide_noise_is_the_streams_normals_on_any_number_of_threads():
    """From 16,384 normals a mini-batch on, numba's threads share the fill: with C = 0, alpha_B and
    v are std times the stream's normals after the batch's draws, as one thread fills them."""
    problem = unit_problem("squared", n=40, p=4 * PIECE_PAIRS + 3, density=0.01, sparse=True)
    std, L, key = 0.37, 5, kernel_key(8)
    batch = np.empty(L, dtype=np.int64)
    _, position = draw_batch(SAMPLE_WITHOUT_REPLACEMENT, L, 0.0, np.arange(problem.n_samples), batch, key, 0)
    expected = np.empty(L + problem.n_features)
    fill_standard_normal(key, position, expected)
    threads = numba.get_num_threads()
    try:
        for count in (1, min(2, numba.config.NUMBA_NUM_THREADS)):
            numba.set_num_threads(count)
            _, _, alpha, v = dp_scd_kernel(*row_arrays(problem), problem.n_features, problem.y,
                                           problem.row_norms**2, problem.loss.code, problem.lam, 0.0, std, L, 1.0,
                                           False, 1e-4, False, False, 1, np.array([0, 1]), key)
            np.testing.assert_array_equal(v, std * expected[L:])
            np.testing.assert_array_equal(alpha[batch], std * expected[:L])
    finally:
        numba.set_num_threads(threads)


def test_noise_std_is_the_multiplier_times_the_lemmas_sensitivity():
    problem = unit_problem("logistic")
    L, clip = 8, 0.3
    plans = {name: plan_of(name, problem, epsilon=1.0, delta=1e-5, passes=3, clip=clip, batch_size=L) for name in MODULES}
    z = plans["dp-scd"].calibration.noise_multiplier
    assert plans["seqdp-scd"].calibration.noise_multiplier == z  # same event: L/N sampling, T batches
    assert plans["dp-scd"].kernel["noise_std"] == pytest.approx(z * 2 * math.sqrt(2) * clip, rel=1e-15)
    assert plans["seqdp-scd"].kernel["noise_std"] == pytest.approx(z * 2 * clip * math.sqrt(L * (L + 1)), rel=1e-15)
    ratio = plans["seqdp-scd"].kernel["noise_std"] / plans["dp-scd"].kernel["noise_std"]
    assert ratio == pytest.approx(math.sqrt(L * (L + 1) / 2)) and ratio > 1
    assert seqdp_scd.sensitivity(clip, 1) == pytest.approx(dp_scd.sensitivity(clip, 1))


@pytest.mark.parametrize("epsilon,delta,L,passes", [(1.0, 1e-5, 20, 5), (0.1, 1e-3, 50, 10), (4.0, 1e-6, 1, 2)])
def test_calibrated_epsilon_is_at_most_the_target_and_tight(epsilon, delta, L, passes):
    """The RDP accountant, checked with dp-accounting directly: sampled without replacement (L of N),
    T batches, replace-one (tests/test_privacy_tight.py checks the default PLD accountant)."""
    problem = unit_problem("hinge", n=500)
    plan = plan_of("dp-scd", problem, epsilon=epsilon, delta=delta, passes=passes, clip=1.0, batch_size=L,
                   accountant="rdp")
    T = plan.n_iterations
    assert T == round(passes * problem.n_samples / L)

    def achieved(z):
        event = dp_event.SampledWithoutReplacementDpEvent(problem.n_samples, L, dp_event.GaussianDpEvent(z))
        accountant = rdp.RdpAccountant(neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE)
        return accountant.compose(event, T).get_epsilon(delta)

    z = plan.calibration.noise_multiplier
    assert plan.calibration.epsilon <= epsilon
    assert achieved(z) <= epsilon * (1 + 1e-9)
    assert achieved(0.99 * z) > epsilon * 0.99


@pytest.mark.parametrize("name", ["dp-scd", "seqdp-scd"])
def test_default_is_sound_and_the_papers_accounting_is_named(name):
    """Default: noise on every dual, PLD; batch noise is accounted exactly without amplification,
    or by the paper's Theorem 1 (labelled "paper", the RDP noise of before)."""
    problem = unit_problem("logistic", n=300)
    fit = dict(epsilon=1.0, delta=1e-5, passes=2, step=1.0, clip=0.5, batch_size=10, seed=0)
    default = privcd.fit(problem, name, **fit)
    revealed = privcd.fit(problem, name, noise="batch-duals", **fit)
    paper = privcd.fit(problem, name, accountant="paper", **fit)  # noise: batch-duals, the accountant's
    assert (default.accountant, revealed.accountant, paper.accountant) == ("pld", "exact", "paper")
    assert default.info["noise"] == "all-duals" and revealed.info["noise"] == "batch-duals"
    assert max(default.epsilon, revealed.epsilon, paper.epsilon) <= 1.0
    rdp_plan = plan_of(name, problem, epsilon=1.0, passes=2, clip=0.5, batch_size=10, accountant="rdp")
    assert paper.noise_multiplier == rdp_plan.calibration.noise_multiplier
    assert default.noise_multiplier < paper.noise_multiplier < revealed.noise_multiplier / 3
    assert paper.info["noise"] == "batch-duals"
    explicit = privcd.fit(problem, name, noise="batch-duals", accountant="paper", **fit)
    np.testing.assert_array_equal(explicit.w, paper.w)


@pytest.mark.parametrize("name", ["dp-scd", "seqdp-scd"])
def test_without_privacy_the_noise_placement_is_the_same_run(name):
    """epsilon = inf: no noise anywhere, so both placements draw the same numbers, bit for bit."""
    problem = unit_problem("hinge", n=120)
    fit = dict(epsilon=INF, passes=2, step=1.0, clip=INF, batch_size=7, seed=5)
    a = privcd.fit(problem, name, noise="all-duals", **fit)
    b = privcd.fit(problem, name, noise="batch-duals", **fit)
    np.testing.assert_array_equal(a.w, b.w)


# -- storage and determinism -------------------------------------------------------------------

@pytest.mark.parametrize("name", ["dp-scd", "seqdp-scd"])
@pytest.mark.parametrize("loss", LOSSES)
def test_dense_and_sparse_follow_the_same_path(name, loss):
    """Same records and noise; the dense row sums are SIMD sums (kernels/rows.py), so the two agree to
    rounding, far closer than a run with another seed."""
    dense = unit_problem(loss, n=80, density=0.5)
    sparse = unit_problem(loss, n=80, density=0.5, sparse=True)
    fit = dict(epsilon=1.0, delta=1e-5, passes=3, step=1.0, clip=0.5, batch_size=7)
    a = privcd.fit(dense, name, seed=4, **fit)
    b = privcd.fit(sparse, name, seed=4, **fit)
    np.testing.assert_allclose(a.w, b.w, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(a.history["objective"], b.history["objective"], rtol=1e-10)
    assert np.abs(privcd.fit(dense, name, seed=5, **fit).w - a.w).max() > 1e-3


# -- errors ------------------------------------------------------------------------------------

def test_unnormalised_rows_are_refused_naming_the_norm_and_the_fix():
    problem = unit_problem("squared")
    X = problem.X.copy()
    X[17] *= 1.5
    bad = privcd.Problem(X, problem.y, "squared", "l2", 0.1)
    for name in MODULES:
        with pytest.raises(ValueError, match=r"row of L2 norm 1\.5 \(row 17\).*norm <= 1.*unit norm"):
            privcd.fit(bad, name, epsilon=1.0, delta=1e-5, passes=1, step=1.0, clip=1.0)


# -- rows bounded by R: the problem on x / R with lam / R^2 -------------------------------------

def bounded_problem(loss, bound, *, sparse=False, **kwargs):
    """``unit_problem``'s records times ``bound`` (rows of norm <= bound) and ``lam``; its scaled twin."""
    unit = unit_problem(loss, sparse=sparse)
    lam = 0.02
    big = privcd.Problem(unit.X * bound, unit.y, loss, "l2", lam, **kwargs)
    small = privcd.Problem(unit.X, unit.y, loss, "l2", lam / bound**2)
    return big, small


@pytest.mark.parametrize("name", sorted(MODULES))
@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("sparse", [False, True])
def test_a_row_bound_runs_the_rescaled_problem_and_maps_theta_back(name, loss, sparse):
    """Option row_norm_bound = R: the run on (X, lam) is the run on (X / R, lam / R^2), theta / R,
    draw for draw; the objectives agree, F(theta) = F'(R theta)."""
    big, small = bounded_problem(loss, 7.5, sparse=sparse)
    fit = dict(epsilon=1.0, delta=1e-5, passes=3, step=1.0, clip=0.05, batch_size=10, seed=3)
    on_big = privcd.fit(big, name, row_norm_bound=7.5, **fit)
    on_small = privcd.fit(small, name, **fit)
    np.testing.assert_allclose(on_big.w * 7.5, on_small.w, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(on_big.history["objective"], on_small.history["objective"], rtol=1e-9)
    assert (on_big.noise_multiplier, on_big.epsilon) == (on_small.noise_multiplier, on_small.epsilon)


def test_a_row_bound_reaches_the_optimum_of_the_given_problem():
    """Without noise, DP-SCD on rows of norm up to 7.5 converges to the given problem's optimum."""
    big, _ = bounded_problem("logistic", 7.5)
    run = privcd.fit(big, "dp-scd", epsilon=INF, passes=60, step=1.0, clip=INF, batch_size=1, row_norm_bound=7.5)
    f_star = privcd.solve_nonprivate(big).f_star
    assert (big.objective(run.w) - f_star) / f_star < 1e-6


def test_the_problems_row_bound_is_dp_scds_default():
    big, _ = bounded_problem("squared", 7.5, row_norm_bound=7.5)
    fit = dict(epsilon=1.0, delta=1e-5, passes=2, step=1.0, clip=0.05, batch_size=10, seed=1)
    np.testing.assert_array_equal(privcd.fit(big, "dp-scd", **fit).w,
                                  privcd.fit(big, "dp-scd", row_norm_bound=7.5, **fit).w)


@pytest.mark.parametrize("bound,match", [
    (None, r"row of L2 norm 7\.5\d* \(row \d+\).*norm <= 1\.0 \(row_norm_bound"),
    (7.0, r"row of L2 norm 7\.5\d* \(row \d+\).*norm <= 7\.0 \(row_norm_bound"),
    (-1.0, r"row_norm_bound=-1\.0"),
])
def test_rows_above_the_bound_or_a_bad_bound_are_refused(bound, match):
    big, _ = bounded_problem("logistic", 7.5)
    with pytest.raises(ValueError, match=match):
        privcd.fit(big, "dp-scd", epsilon=1.0, delta=1e-5, passes=1, step=1.0, clip=1.0, row_norm_bound=bound)


@pytest.mark.parametrize("penalty,lam", [("l1", 0.1), (None, 0.0), ("l2", 0.0)])
def test_penalty_other_than_l2_with_positive_lam_is_refused(penalty, lam):
    problem = unit_problem("logistic")
    other = privcd.Problem(problem.X, problem.y, "logistic", penalty, lam)
    for name in MODULES:
        with pytest.raises(ValueError, match=f"penalty={penalty!r} with lam={lam!r}.*penalty='l2' and lam > 0"):
            privcd.fit(other, name, epsilon=1.0, delta=1e-5, passes=1, step=1.0, clip=1.0)


@pytest.mark.parametrize("options,match", [
    (dict(batch_size=201), "batch_size=201 exceeds the number of records n=200"),
    (dict(batch_size=0), "batch_size=0 must be an integer >= 1"),
    (dict(box=0.5), "box=0.5 is outside"),
    (dict(box=0.0), "box=0.0 is outside"),
    (dict(noise="all-duals", accountant="exact"),
     "accountant='exact' does not account noise='all-duals'.*needs noise='batch-duals'"),
    (dict(noise="batch-duals", accountant="pld"), "accountant='pld' does not account noise='batch-duals'"),
    (dict(noise="alpha"), "noise='alpha' is not accepted"),
    (dict(accountant="moments"), "accountant='moments' is not accepted"),
])
def test_bad_options_are_named(options, match):
    problem = unit_problem("logistic")
    for name in MODULES:
        with pytest.raises(ValueError, match=match):
            privcd.fit(problem, name, epsilon=1.0, delta=1e-5, passes=1, step=1.0, clip=1.0, **options)


@pytest.mark.parametrize("name", ["dp-cd"])  # dp-sgd takes subgradients: tests/test_dp_sgd_hinge.py
def test_primal_methods_refuse_the_non_smooth_hinge_loss(name):
    problem = unit_problem("hinge")
    with pytest.raises(ValueError, match="loss='hinge' is not smooth"):
        privcd.fit(problem, name, epsilon=1.0, delta=1e-5, passes=1, step=0.5, clip=1.0)
