"""DP-GCD (dp-gcd Algorithm 1, proximal Algorithm 2 with GS-s/GS-r/GS-q): convergence without noise,
greedy selection, privacy calibration (eq. (2)), noise scales, sparsity bookkeeping, options."""
import math

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import integrate, stats

import privcd
from privcd.algorithms import dp_gcd
from privcd.algorithms.base import Settings, coordinate_thresholds
from privcd.kernels.dp_gcd import (RULE_GS_Q, RULE_GS_R, RULE_GS_S, rule_score, select_coordinate,
                                   subgradient_distance)
from privcd.optimum import solve_nonprivate
from privcd.penalties import PENALTY_MODULES, l1
from conftest import make_problem

INF = float("inf")
RULES = {"gs-s": RULE_GS_S, "gs-r": RULE_GS_R, "gs-q": RULE_GS_Q}


def equation_2(epsilon_step, delta, iterations):
    """dp-gcd eq. (2): advanced composition of 2T epsilon'-DP mechanisms."""
    return (math.sqrt(4 * iterations * math.log(1 / delta)) * epsilon_step
            + 2 * iterations * epsilon_step * math.expm1(epsilon_step))


def plan_for(problem, *, epsilon=1.0, delta=1e-5, passes=1, step=0.5, clip=1.0, rule=None,
             accountant="advanced-composition"):
    """The plan of a run; the paper's accountant (eq. (2)) unless told otherwise, whose epsilon' has a
    closed-form check here (the default PLD accountant: tests/test_privacy_tight.py)."""
    settings = Settings(epsilon=epsilon, delta=delta, passes=passes, step=step, clip=clip)
    return dp_gcd.plan(problem, settings, {**dp_gcd.OPTIONS, "rule": rule, "accountant": accountant})


# -- the non-private limit --------------------------------------------------------------------

@pytest.mark.parametrize("loss,penalty,lam,rule,iterations", [
    ("logistic", "l2", 0.01, None, 3000),
    ("logistic", "l2", 0.01, "gs-s", 3000),
    ("logistic", "l2", 0.01, "gs-r", 3000),
    ("logistic", "l2", 0.01, "gs-q", 3000),
    ("squared", "l1", 0.5, "gs-s", 300),
    ("squared", "l1", 0.5, "gs-r", 300),
    ("squared", "l1", 0.5, "gs-q", 300),
    ("logistic", "l1", 0.02, None, 3000),
])
def test_noise_free_unclipped_dp_gcd_reaches_the_optimum(loss, penalty, lam, rule, iterations, storage):
    problem = make_problem(loss, penalty, lam, sparse=storage == "sparse")
    _, f_star = solve_nonprivate(problem)
    run = privcd.fit(problem, "dp-gcd", epsilon=INF, passes=iterations, step=1.0, clip=INF, seed=0, rule=rule,
                     checkpoints=1)
    assert (run.objective - f_star) / f_star < 1e-9


def test_without_penalty_every_rule_is_algorithm_1():
    """psi = 0: GS-s, GS-r and GS-q rank coordinates by |g_j| / sqrt(M_j) like Algorithm 1."""
    problem = make_problem("squared", None, 0.0)
    runs = {rule: privcd.fit(problem, "dp-gcd", epsilon=INF, passes=60, step=0.7, clip=INF, rule=rule)
            for rule in (None, "gs-s", "gs-r", "gs-q")}
    assert runs[None].info["rule"] == "algorithm-1"
    for rule in ("gs-s", "gs-r", "gs-q"):
        assert np.array_equal(runs[rule].info["selected"], runs[None].info["selected"])
        np.testing.assert_allclose(runs[rule].w, runs[None].w, rtol=1e-12, atol=1e-15)


# -- greedy selection ----------------------------------------------------------------------------

def brute_force_scores(rule, lam, g, w, M):
    """The Appendix C rules from their definitions (L1 penalty), as minima over the finitely many
    points where they can be attained."""
    if rule == "gs-s":
        subgradients = [lam * np.sign(w)] if w != 0 else [-lam, lam, np.clip(-g, -lam, lam)]
        return min(abs(g + xi) for xi in subgradients) / math.sqrt(M)
    # g a + M a^2 / 2 + lam (|w + a| - |w|) is convex and quadratic on each side of its kink a = -w:
    # it is minimal at the kink or at the stationary point of one side.
    candidates = [-w, -(g + lam) / M, -(g - lam) / M]
    values = [g * a + M / 2 * a * a + lam * (abs(w + a) - abs(w)) for a in candidates]
    best = int(np.argmin(values))
    if rule == "gs-r":  # the prox step with step 1/M is the model's minimiser
        return math.sqrt(M) * abs(candidates[best])
    return math.sqrt(-2 * values[best])


# Appendix C "bad steps" (lam = 1): A crosses zero, C lands on zero; B starts at 0 (a good step).
# rule: (GS-s, GS-r, GS-q) scores worked out by hand.
BAD_STEPS = dict(g=np.array([3.0, -6.0, 5.0]), w=np.array([0.5, 0.0, 1.0]), M=np.array([1.0, 4.0, 4.0]))
HAND_SCORES = {"gs-s": [4.0, 2.5, 3.0], "gs-r": [2.0, 2.5, 2.0], "gs-q": [math.sqrt(6), 2.5, math.sqrt(8)]}


@pytest.mark.parametrize("rule", sorted(RULES))
def test_bad_steps_separate_the_three_rules(rule):
    g, w, M = BAD_STEPS["g"], BAD_STEPS["w"], BAD_STEPS["M"]
    scores = [rule_score(RULES[rule], l1.CODE, 1.0, g[j], w[j], M[j]) for j in range(3)]
    np.testing.assert_allclose(scores, HAND_SCORES[rule], rtol=1e-15)
    np.testing.assert_allclose(scores, [brute_force_scores(rule, 1.0, g[j], w[j], M[j]) for j in range(3)],
                               rtol=1e-14)
    chosen = select_coordinate(RULES[rule], l1.CODE, 1.0, g, w, M, np.zeros(3), np.ones(3))
    assert chosen == {"gs-s": 0, "gs-r": 1, "gs-q": 2}[rule]


def test_selection_without_noise_is_the_argmax_of_the_rule():
    rng = np.random.default_rng(3)
    lam = 0.4
    for _ in range(40):
        p = 6
        g = rng.normal(size=p) * 2
        w = np.where(rng.random(p) < 0.4, 0.0, rng.normal(size=p))
        M = rng.lognormal(size=p)
        for rule, code in RULES.items():
            expected = np.argmax([brute_force_scores(rule, lam, g[j], w[j], M[j]) for j in range(p)])
            # noise scales of zero: the Laplace draws (here huge) must not matter
            chosen = select_coordinate(code, l1.CODE, lam, g, w, M, np.zeros(p), rng.laplace(size=p) * 1e6)
            assert chosen == expected


def test_on_good_steps_the_rules_coincide():
    """No sign change and no landing on zero: the three scores equal |g + lam sign(w)| / sqrt(M)."""
    for g, w, M in [(0.3, 2.0, 1.5), (4.0, -1.0, 0.5), (2.5, 0.0, 3.0), (-1.7, 0.0, 0.2)]:
        scores = [rule_score(code, l1.CODE, 1.0, g, w, M) for code in RULES.values()]
        np.testing.assert_allclose(scores, subgradient_distance(l1.CODE, g, w, 1.0) / math.sqrt(M), rtol=1e-14)


@pytest.mark.parametrize("module", PENALTY_MODULES, ids=lambda m: str(m.SPEC.name))
def test_subgradient_distance_covers_every_penalty(module):
    """min over d psi(w) of |v + xi|, against a one-sided difference quotient of psi at w."""
    lam, h = 0.3, 1e-7
    for v in (-2.0, -0.1, 0.05, 1.0):
        for w in (-1.0, 0.0, 0.7):
            right = (module.value(w + h, lam) - module.value(w, lam)) / h
            left = (module.value(w, lam) - module.value(w - h, lam)) / h
            expected = 0.0 if -right <= v <= -left else min(abs(v + left), abs(v + right))
            assert subgradient_distance(module.CODE, v, w, lam) == pytest.approx(expected, abs=1e-6)


def test_zero_columns_are_never_selected():
    X = np.random.default_rng(2).normal(size=(50, 4))
    X[:, 1] = 0.0
    problem = privcd.Problem(sp.csc_matrix(X), np.sign(X[:, 0]) + (X[:, 0] == 0), "logistic", "l1", 0.01)
    run = privcd.fit(problem, "dp-gcd", epsilon=1.0, delta=1e-4, passes=30, step=1.0, clip=1.0, seed=0)
    assert 1 not in run.info["selected"] and run.w[1] == 0.0 and np.all(np.isfinite(run.w))


# -- privacy calibration -----------------------------------------------------------------------

@pytest.mark.parametrize("epsilon,delta", [(0.1, 1e-6), (1.0, 1e-5), (10.0, 1e-3)])
def test_epsilon_per_mechanism_solves_equation_2(epsilon, delta):
    problem = make_problem("logistic", "l2", 0.01)
    previous = INF
    for passes in (1, 2, 7, 20, 200):
        plan = plan_for(problem, epsilon=epsilon, delta=delta, passes=passes)
        step = plan.info["epsilon_per_mechanism"]
        assert plan.info["mechanisms"] == 2 * passes
        assert equation_2(step, delta, passes) <= epsilon
        assert equation_2(step, delta, passes) == pytest.approx(epsilon, rel=1e-9)
        assert plan.calibration.epsilon == pytest.approx(equation_2(step, delta, passes), rel=1e-12)
        assert plan.calibration.epsilon <= epsilon
        assert step < previous  # more iterations, less budget per mechanism
        previous = step


def test_laplace_scales_follow_the_sensitivity():
    """b_j = Delta_j / epsilon', b'_j = 2 Delta_j / epsilon' with Delta_j = 2 C_j / n (replace-one)."""
    problem = make_problem("logistic", "l1", 0.02)
    plan = plan_for(problem, epsilon=0.8, delta=1e-6, passes=5, clip=3.0)
    step = plan.info["epsilon_per_mechanism"]
    sensitivity = 2 * coordinate_thresholds(problem.M, 3.0) / problem.n_samples
    arrays = dp_gcd.kernel_arrays(problem, plan)
    np.testing.assert_allclose(arrays["release_scale"], sensitivity / step, rtol=1e-15)
    np.testing.assert_allclose(arrays["selection_scale"], 2 * sensitivity / step, rtol=1e-15)
    assert plan.calibration.noise_multiplier == pytest.approx(math.sqrt(2) / step, rel=1e-15)
    assert plan.calibration.accountant == "advanced-composition"
    # the scaled sensitivity of every selection score is the same: Delta_j / sqrt(M_j)
    scaled = sensitivity / np.sqrt(problem.M)
    np.testing.assert_allclose(scaled, scaled[0], rtol=1e-12)


def selection_probability(g, scale, M):
    """P(coordinate 1 wins) for Algorithm 1's noisy max over two coordinates, by quadrature:
    ``P(|g_1 + X_1| / sqrt(M_1) > |g_0 + X_0| / sqrt(M_0))`` with ``X_j ~ Lap(scale_j)``."""
    def beaten(x0):
        t = abs(g[0] + x0) * math.sqrt(M[1] / M[0])
        return stats.laplace.sf(t - g[1], scale=scale[1]) + stats.laplace.cdf(-t - g[1], scale=scale[1])
    density = stats.laplace(scale=scale[0]).pdf
    points = sorted({-g[0], 0.0})
    pieces = [(-np.inf, points[0]), *zip(points[:-1], points[1:]), (points[-1], np.inf)]
    return sum(integrate.quad(lambda x: density(x) * beaten(x), a, b, epsabs=1e-14, epsrel=1e-12)[0]
               for a, b in pieces)


def test_noisy_max_scale_is_epsilon_prime_dp_and_the_papers_is_not():
    """Neighbouring gradients (a, 0) and (a - D, D) (replace-one moves entries in opposite directions):
    with b' = 2 D / epsilon' the selection probabilities stay within exp(epsilon'); with the paper's
    b' = D / epsilon' they do not (the ratio tends to exp(2 epsilon') as a grows)."""
    epsilon_step, D, M = 0.5, 1.0, (1.0, 1.0)
    worst = {}
    for factor in (1.0, 2.0):
        scale = (factor * D / epsilon_step,) * 2
        ratios = []
        for a in (0.0, 2.0, 5.0, 10.0, 20.0, 40.0):
            here = selection_probability((a, 0.0), scale, M)
            there = selection_probability((a - D, D), scale, M)
            ratios += [there / here, (1 - here) / (1 - there)]
        worst[factor] = max(ratios)
    assert worst[2.0] <= math.exp(epsilon_step)
    assert worst[1.0] > 1.05 * math.exp(epsilon_step)


def score_noise_probability(scores, scale):
    """P(coordinate 1 wins) for the Appendix C rules over two coordinates, by quadrature:
    ``P(s_1 + Y_1 > s_0 + Y_0)`` with ``Y_j ~ Lap(scale)``."""
    density = stats.laplace(scale=scale).pdf
    return integrate.quad(lambda x: density(x) * stats.laplace.sf(scores[0] - scores[1] + x, scale=scale),
                          -np.inf, np.inf, epsabs=1e-14, epsrel=1e-12)[0]


@pytest.mark.parametrize("rule", [None, "gs-s"])
def test_selection_noise_has_the_calibrated_scale(rule):
    """Two features, one iteration: the frequency of selecting feature 1 over many seeds matches the
    probability computed with the plan's selection scale, and not the one with half that scale.
    Algorithm 1 (no penalty) adds the noise inside ``|g_j + chi_j|``, GS-s to ``|g_j| / sqrt(M_j)``."""
    rng = np.random.default_rng(4)
    n = 40
    X = rng.normal(size=(n, 2)) * np.array([1.0, 3.0])
    y = X @ np.array([1.0, 0.1]) + rng.normal(size=n)
    problem = privcd.Problem(X, y, "squared")
    plan = plan_for(problem, epsilon=3.0, delta=1e-5, passes=1, clip=2.0, rule=rule)
    M = problem.M
    arrays = dp_gcd.kernel_arrays(problem, plan)
    C = arrays["thresholds"]
    g = np.clip(2 * (0 - y)[:, None] * X, -C, C).mean(axis=0)
    scale = arrays["selection_scale"]
    if rule is None:
        expected, halved = (selection_probability(g, b, M) for b in (scale, scale / 2))
    else:
        scaled = scale / np.sqrt(M)
        np.testing.assert_allclose(scaled, scaled[0], rtol=1e-12)
        expected, halved = (score_noise_probability(np.abs(g) / np.sqrt(M), b) for b in (scaled[0], scaled[0] / 2))
    trials = 4000
    ones = sum(dp_gcd.run(problem, plan, seed)[2]["selected"][0] for seed in range(trials))
    sd = math.sqrt(expected * (1 - expected) / trials)
    assert abs(ones / trials - expected) < 4 * sd
    assert abs(halved - expected) > 10 * sd


def test_release_noise_has_the_calibrated_scale():
    """At w = 0 with y = 0 the gradient is zero: the noisy max picks uniformly (equal scaled noise) and
    one step moves w_j by -gamma_j eta_j with eta_j ~ Lap(b_j)."""
    rng = np.random.default_rng(1)
    n, p = 200, 4
    X = rng.normal(size=(n, p)) * np.array([0.1, 1.0, 5.0, 20.0])
    problem = privcd.Problem(X, np.zeros(n), "squared")
    plan = plan_for(problem, epsilon=1.0, delta=1e-5, passes=1, step=0.3, clip=2.0)
    scale = dp_gcd.kernel_arrays(problem, plan)["release_scale"]
    counts = np.zeros(p)
    standardised = []
    for seed in range(3000):
        w, _, extra = dp_gcd.run(problem, plan, seed)
        j = extra["selected"][0]
        counts[j] += 1
        standardised.append(-w[j] * problem.M[j] / 0.3 / scale[j])
    assert stats.chisquare(counts).pvalue > 1e-4
    assert stats.kstest(standardised, stats.laplace.cdf).pvalue > 1e-4
    assert stats.kstest(np.array(standardised) / 1.3, stats.laplace.cdf).pvalue < 1e-6


# -- run record, sparsity, options ------------------------------------------------------------------

def test_iterations_are_rounded_passes_and_updates_are_recorded():
    problem = make_problem("logistic", "l1", 0.02, p=40)
    run = privcd.fit(problem, "dp-gcd", epsilon=1.0, delta=1e-5, passes=7.4, step=1.0, clip=1.0, seed=2)
    selected, updated = run.info["selected"], run.info["updated"]
    assert len(selected) == 7 and run.history["iteration"].iloc[-1] == 7
    assert np.array_equal(np.flatnonzero(updated), np.unique(selected))
    assert np.all(run.w[~updated] == 0.0)
    assert run.info["rule"] == "gs-r"
    assert privcd.fit(problem, "dp-gcd", epsilon=1.0, delta=1e-5, passes=0.2, step=1.0, clip=1.0).info[
        "mechanisms"] == 2


def test_dense_csc_and_csr_give_the_same_bits():
    dense = make_problem("logistic", "l1", 0.02, p=30)
    results = []
    for X in (dense.X, sp.csc_matrix(dense.X), sp.csr_matrix(dense.X)):
        problem = privcd.Problem(X, dense.y, "logistic", "l1", 0.02)
        for rule in (None, "gs-s", "gs-q"):
            results.append(privcd.fit(problem, "dp-gcd", epsilon=2.0, delta=1e-5, passes=25, step=0.8, clip=2.0,
                                      seed=9, rule=rule).w)
    for k in range(3):
        assert np.count_nonzero(results[k]) > 1
        assert np.array_equal(results[k], results[3 + k]) and np.array_equal(results[k], results[6 + k])


def test_unknown_rule_is_named_before_the_kernel_runs(monkeypatch):
    problem = make_problem("logistic", "l1", 0.02)

    def kernel_must_not_run(*args, **kwargs):
        raise AssertionError("the kernel ran before the options were checked")

    monkeypatch.setattr(dp_gcd, "run", kernel_must_not_run)
    with pytest.raises(ValueError, match=r"rule='gs-x' is not accepted; expected one of \[None, 'gs-s', 'gs-r', 'gs-q'\]"):
        privcd.fit(problem, "dp-gcd", epsilon=1.0, delta=1e-5, passes=2, step=1.0, clip=1.0, rule="gs-x")


def test_numpy_reference_follows_the_same_random_path():
    from numpy_reference import dp_gcd as reference
    for loss, penalty, lam, rule in [("logistic", "l2", 0.01, None), ("squared", "l1", 0.1, "gs-r"),
                                     ("logistic", "l1", 0.02, "gs-q")]:
        problem = make_problem(loss, penalty, lam)
        plan = plan_for(problem, epsilon=1.0, passes=30, clip=1.0, rule=rule)
        w, _, _ = dp_gcd.run(problem, plan, 5)
        np.testing.assert_allclose(reference.run(problem, plan, 5), w, rtol=1e-10, atol=1e-14)
