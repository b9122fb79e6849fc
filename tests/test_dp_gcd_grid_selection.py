"""A release's report-noisy-max on the grid (privcd.kernels.dp_gcd.select_on_grid): integer scores that
track the rules' scores and move by at most one unit more than the gradient's grid integer, selection
probabilities computed exactly from the discrete Laplace law and within exp(epsilon') between
neighbours (and not with half the noise: the check has power), and releases that draw no
floating-point noise, refuse what they cannot score, and still descend."""
import itertools
import math
import warnings

import numpy as np
import pytest

import privcd
from privcd.kernels.dp_gcd import (NO_GRID_SCORE, RULE_ALGORITHM_1, RULE_GS_Q, RULE_GS_R, RULE_GS_S, grid_score,
                                   grid_units, has_grid_score, rule_score, select_on_grid)
from privcd.penalties import l1, l2, none
from privcd.privacy.greedy_composition import grid_selection_units

PENALTIES = {"none": none.CODE, "l1": l1.CODE, "l2": l2.CODE}
RULES = {"gs-s": RULE_GS_S, "gs-r": RULE_GS_R, "gs-q": RULE_GS_Q}
SCORED = [(rule, penalty) for rule, penalty in itertools.product(RULES, PENALTIES)
          if has_grid_score(RULES[rule], PENALTIES[penalty])]


def test_only_gs_q_under_l1_has_no_grid_score():
    assert [(rule, penalty) for rule, penalty in itertools.product(RULES, PENALTIES)
            if (rule, penalty) not in SCORED] == [("gs-q", "l1")]
    assert grid_score(RULE_GS_Q, l1.CODE, 1.0, 0.3, 0.0, 1.0, 1e-3) == NO_GRID_SCORE
    assert has_grid_score(RULE_ALGORITHM_1, l2.CODE) and has_grid_score(RULE_ALGORITHM_1, none.CODE)


def _cases(seed, count=400):
    """Random (g, w_j, M_j, lam, h_j): gradients of a few hundred grid units, iterates at 0, small and
    far from it, smoothness constants over four decades."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        h = 10.0 ** rng.uniform(-6, -2)
        g = rng.normal() * h * 10.0 ** rng.uniform(0, 3)
        w = rng.choice([0.0, rng.normal() * 1e-3, rng.normal() * 10.0])
        yield g, w, 10.0 ** rng.uniform(-2, 2), 10.0 ** rng.uniform(-4, 0), h


@pytest.mark.parametrize("rule, penalty", SCORED)
def test_grid_scores_are_the_rules_scores_to_a_few_units(rule, penalty):
    """``grid_score * h / sqrt(M)`` against the floating-point rule_score: within 3 units (the
    rounding of U and of each public value, and a floor)."""
    for g, w, M, lam, h in _cases(1):
        unit = h / math.sqrt(M)
        on_grid = grid_score(RULES[rule], PENALTIES[penalty], lam, g, w, M, h)
        assert on_grid >= 0
        assert abs(on_grid * unit - rule_score(RULES[rule], PENALTIES[penalty], lam, g, w, M)) <= 3.0 * unit


@pytest.mark.parametrize("rule, penalty", SCORED)
def test_a_grid_score_moves_by_at_most_one_unit_more_than_the_gradients_integer(rule, penalty):
    """The sensitivity the selection's noise is calibrated to (S + 1 for gradient integers S apart),
    on random pairs of gradients with the same public iterate, down to adjacent integers and up to
    gradients 2^45 units apart (the clamp at 2^50)."""
    rng = np.random.default_rng(2)
    worst = 0
    for g, w, M, lam, h in _cases(3):
        for shift in (h, 3.7 * h, rng.normal() * 1000 * h, 2.0**45 * h * rng.choice([-1, 1])):
            other = g + shift
            moved = abs(int(grid_units(g, h)) - int(grid_units(other, h)))
            change = abs(int(grid_score(RULES[rule], PENALTIES[penalty], lam, g, w, M, h))
                         - int(grid_score(RULES[rule], PENALTIES[penalty], lam, other, w, M, h)))
            assert change <= moved + 1
            worst = max(worst, change - moved)
    assert worst <= (1 if (rule, penalty) in (("gs-r", "l2"), ("gs-q", "l2")) else 0)  # the floored scores' + 1


def _laplace_pmf(t, top):
    support = np.arange(-top, top + 1)
    pmf = np.exp(-np.abs(support) / t)
    return support, pmf / pmf.sum()


def enumerated_probabilities(units, rule, t, top):
    """P(select j) for two coordinates with gradient integers ``units`` (spacing 1, M = 1, no
    penalty), summing the discrete Laplace law of scale ``t`` over ``[-top, top]^2`` with
    :func:`select_on_grid` deciding each pair of draws."""
    support, pmf = _laplace_pmf(t, top)
    probabilities = np.zeros(2)
    gradient, w, M, spacings = np.asarray(units, dtype=float), np.zeros(2), np.ones(2), np.ones(2)
    draws = np.empty(2, dtype=np.int64)
    for a, pa in zip(support, pmf):
        for b, pb in zip(support, pmf):
            draws[0], draws[1] = a, b
            probabilities[select_on_grid(rule, none.CODE, 0.0, gradient, w, M, spacings, draws)] += pa * pb
    return probabilities


def closed_form_probabilities(units, rule, t, top):
    """The same law in closed form (the mass beyond ``top`` left out is below ``2 exp(-top / t)``):
    coordinate 0 wins ties, so with the GS rules ``P(0) = P(|u_1| + Z_1 <= |u_0| + Z_0)``, and with
    Algorithm 1's noise inside ``P(0) = sum_a P(Z_0 = a) P(|u_1 + Z_1| <= |u_0 + a|)``."""
    support, pmf = _laplace_pmf(t, top)
    if rule == RULE_ALGORITHM_1:
        beaten = np.abs(units[1] + support)[None, :] <= np.abs(units[0] + support)[:, None]
    else:
        beaten = (abs(units[1]) + support)[None, :] <= (abs(units[0]) + support)[:, None]
    return np.array([pmf @ beaten @ pmf, pmf @ ~beaten @ pmf])


@pytest.mark.parametrize("rule", [RULE_GS_S, RULE_ALGORITHM_1])
def test_the_kernels_selections_follow_the_discrete_laplace_law(rule):
    t, top = 3, 60
    for units in [(5, 2), (0, 0), (-4, 7), (2, -2)]:
        np.testing.assert_allclose(enumerated_probabilities(units, rule, t, top),
                                   closed_form_probabilities(units, rule, t, top), rtol=0, atol=1e-12)


@pytest.mark.parametrize("rule", [RULE_GS_S, RULE_ALGORITHM_1])
def test_neighbouring_selections_are_within_exp_epsilon_and_not_with_half_the_noise(rule):
    """Gradient integers S' = S + 1 apart in every direction, t' = ceil(2 S' / epsilon'): the largest
    ratio of selection probabilities is at most exp(epsilon') and above exp(0.8 epsilon') (deep in
    the tail the bound is nearly reached); with t' halved, the paper's scale, it passes exp(epsilon')."""
    epsilon_step, sensitivity = 1.0, 2
    shift = sensitivity + 1
    worst = {}
    for factor in (1, 2):
        t = grid_selection_units(epsilon_step, sensitivity) // factor
        top = 60 * t
        ratios = []
        for units in [(0, 0), (40, 10), (10, 40), (120, 10), (-60, 30)]:
            here = closed_form_probabilities(units, rule, t, top)
            for moves in itertools.product((-shift, 0, shift), repeat=2):
                there = closed_form_probabilities(np.add(units, moves), rule, t, top)
                ratios += [*(here / there), *(there / here)]
        assert np.all(np.isfinite(ratios))
        worst[factor] = max(ratios)
    assert math.exp(0.8 * epsilon_step) < worst[1] <= math.exp(epsilon_step) * (1 + 1e-9)
    assert worst[2] > math.exp(epsilon_step)


@pytest.fixture(scope="module")
def problem_data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 6))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return X, np.sign(X @ rng.normal(size=6) + 0.1)


ARGUMENTS = dict(epsilon=5.0, delta=1e-5, passes=15, step=1.0, clip=1.0)


@pytest.mark.parametrize("penalty, rule", [(None, None), ("l2", None), ("l2", "gs-r"), ("l2", "gs-q"), ("l1", None),
                                           ("l1", "gs-s")])
def test_a_release_selects_on_the_grid_and_descends(problem_data, penalty, rule):
    """No warning; the selection's noise is the experiment's to within the
    grid's (S + 1) / K; the objective falls well below w = 0's."""
    problem = privcd.Problem(*problem_data, "logistic", penalty, 1e-3 if penalty else 0.0, row_norm_bound=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        release = privcd.fit(problem, "dp-gcd", rule=rule, **ARGUMENTS)
    experiment = privcd.fit(problem, "dp-gcd", rule=rule, seed=0, **ARGUMENTS)
    noise = release.info["grid_noise"]
    assert noise["selection_units"] == grid_selection_units(release.info["epsilon_per_mechanism"],
                                                            noise["sensitivity_units"])
    ratio = release.info["selection_scale"] / experiment.info["selection_scale"]
    assert np.all((ratio >= 1.0) & (ratio <= 1.0 + 4.0 / noise["grid_ratio"]))
    start = problem.objective(np.zeros(problem.n_features))
    assert problem.objective(release.w) < start - 0.5 * (start - experiment.objective)


def test_a_release_with_gs_q_under_l1_is_refused_naming_the_alternatives(problem_data):
    problem = privcd.Problem(*problem_data, "logistic", "l1", 1e-3, row_norm_bound=1.0)
    with pytest.raises(ValueError, match=r"rule='gs-q' and the 'l1' penalty.*use rule='gs-s' or 'gs-r'.*give a seed"):
        privcd.fit(problem, "dp-gcd", rule="gs-q", **ARGUMENTS)
    assert np.isfinite(privcd.fit(problem, "dp-gcd", rule="gs-q", seed=0, **ARGUMENTS).objective)
