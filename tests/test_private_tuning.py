"""privcd.tune_private and privcd.privacy.selection: private hyperparameter tuning, counted (issue 22)."""
import math

import dp_accounting
import numpy as np
import pytest
from dp_accounting import dp_event
from dp_accounting.rdp import rdp_privacy_accountant
from scipy import integrate, stats

import privcd
from privcd import privacy
from privcd.privacy.replace_one_rdp import ReplaceOneRdpAccountant
from privcd.privacy.selection import (
    candidate_cap, sample_tnb, selection_rdp, tnb_gamma, tnb_mean, tnb_tail,
)
from privcd.tuning.private import ORDERS, candidate_mu, selection_epsilon


@pytest.mark.parametrize("shape, mean", [(0.0, 5.0), (0.5, 10.0), (1.0, 10.0), (2.0, 30.0)])
def test_selection_rdp_is_dp_accountings_repeat_and_select(shape, mean):
    """The same Theorem 2 as dp-accounting's RepeatAndSelectDpEvent (an independent implementation):
    equal once dp-accounting's monotone envelope is applied, and never below it."""
    gamma = tnb_gamma(shape, mean)
    assert tnb_mean(shape, gamma) == pytest.approx(mean, rel=1e-9)
    rdp = ORDERS * 0.3**2 / 2
    ours = selection_rdp(ORDERS, rdp, shape, gamma)
    theirs = rdp_privacy_accountant._compute_rdp_repeat_and_select(ORDERS, rdp, mean, shape)
    envelope = np.array([ours[i:].min() for i in range(len(ours))])
    assert np.allclose(envelope, theirs, rtol=1e-9) and np.all(ours >= envelope)
    accountant = rdp_privacy_accountant.RdpAccountant(orders=list(ORDERS))
    accountant.compose(dp_event.RepeatAndSelectDpEvent(dp_event.GaussianDpEvent(1 / 0.3), mean, shape))
    assert selection_epsilon(0.3, delta=1e-5, shape=shape, gamma=gamma) == pytest.approx(
        accountant.get_epsilon(1e-5), rel=1e-6)


def test_selection_rdp_matches_the_closed_form_for_a_gaussian_candidate():
    """Geometric K (eta = 1) and a rho-zCDP candidate (RDP lambda rho): the minimum over lambda_hat
    of (lambda_hat - 1) rho + log(1/gamma) / lambda_hat is at sqrt(log(1/gamma) / rho), so
    eps'(lambda) = lambda rho + 2 (2 sqrt(rho log(1/gamma)) - rho) + log(E[K]) / (lambda - 1)."""
    rho, gamma = 0.01, tnb_gamma(1.0, 10.0)
    orders = np.linspace(1.001, 200.0, 400_000)
    ours = selection_rdp(orders, orders * rho, 1.0, gamma)
    closed = orders * rho + 2 * (2 * math.sqrt(rho * math.log(1 / gamma)) - rho) + math.log(10.0) / (orders - 1)
    assert np.allclose(ours, closed, rtol=1e-7)


def log_max_of_geometric_density(x, location, gamma):
    """Log-density of the largest of K ~ Geometric(gamma) draws of N(location, 1): d/dx G(Phi(x - m))
    with the generating function G(s) = gamma s / (1 - (1 - gamma) s)."""
    s = stats.norm.cdf(x - location)
    return math.log(gamma) - 2 * np.log1p(-(1 - gamma) * s) + stats.norm.logpdf(x - location)


@pytest.mark.parametrize("mu", [0.3, 1.0])
def test_the_bound_holds_for_the_exact_renyi_divergence_of_a_toy_selection(mu):
    """Toy mechanism: a mu-GDP score N(m, 1) (m = 0 on D, mu on D'), released as the largest of
    K ~ Geometric draws. Its Renyi divergences, by quadrature, in both directions, stay below
    Theorem 2's bound at every order tried."""
    gamma = tnb_gamma(1.0, 10.0)
    bound = selection_rdp(ORDERS, ORDERS * mu**2 / 2, 1.0, gamma)
    for order in (1.5, 2.0, 4.0, 8.0):
        for first, second in ((0.0, mu), (mu, 0.0)):
            value, _ = integrate.quad(lambda x: math.exp(order * log_max_of_geometric_density(x, first, gamma)
                                                         + (1 - order) * log_max_of_geometric_density(x, second, gamma)),
                                      -15, 20, limit=400, points=[0.0, mu, 2.0])
            divergence = math.log(value) / (order - 1)
            at = bound[np.searchsorted(ORDERS, order)]
            assert 0 <= divergence <= at, (order, divergence, at)


def test_the_truncated_negative_binomial_sampler_and_the_cap():
    rng = np.random.default_rng(0)
    for shape in (0.0, 1.0, 3.0):
        gamma = tnb_gamma(shape, 8.0)
        draws = np.array([sample_tnb(shape, gamma, rng) for _ in range(20_000)])
        assert draws.min() >= 1 and draws.mean() == pytest.approx(8.0, rel=0.05)
        assert np.mean(draws > 20) == pytest.approx(tnb_tail(shape, gamma, 20), abs=0.01)
        cap = candidate_cap(shape, gamma, 1.0, 1e-6)
        assert (1 + math.e) * tnb_tail(shape, gamma, cap) <= 1e-6 < (1 + math.e) * tnb_tail(shape, gamma, cap - 1)


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(400, 6))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return privcd.Problem(X, X @ rng.normal(size=6) + 0.1 * rng.normal(size=400), "squared", "l2", 0.01,
                          row_norm_bound=1.0)


GRID = {"passes": [1, 3], "step": [0.1, 0.5, 1.0], "clip": [0.1, 1.0]}


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 5.0])
def test_the_total_never_exceeds_its_target_and_the_run_says_what_was_spent(problem, epsilon):
    run = privcd.tune_private(problem, "dp-cd", GRID, epsilon=epsilon, delta=1e-5, seed=3)
    tuning = run.info["tuning"]
    assert run.epsilon <= epsilon and run.epsilon > 0.99 * epsilon and run.delta == 1e-5
    assert tuning["delta_rdp"] + tuning["delta_tail"] == pytest.approx(1e-5)
    assert (1 + math.exp(epsilon)) * tnb_tail(tuning["shape"], tuning["gamma"], tuning["cap"]) <= tuning["delta_tail"]
    assert tuning["mu_train"] ** 2 + tuning["mu_score"] ** 2 == pytest.approx(tuning["mu"] ** 2)
    assert len(tuning["candidates"]) == tuning["count"] <= tuning["cap"]
    best = min(tuning["candidates"], key=lambda candidate: candidate["score"])
    assert {key: run.settings[key] for key in best["configuration"]} == best["configuration"]
    assert selection_epsilon(tuning["mu"] * 1.001, delta=tuning["delta_rdp"], shape=1.0, gamma=tuning["gamma"]) > epsilon
    # each candidate's training is (at most) mu_train-GDP: T releases of multiplier z
    steps = round(run.settings["passes"] * problem.n_features)
    assert math.sqrt(steps) / run.noise_multiplier <= tuning["mu_train"] * (1 + 1e-6)


def test_a_candidate_count_above_the_cap_never_occurs(problem):
    """With a huge tail budget (delta 0.9, nearly all of it for the cap) the cap binds in about a
    quarter of the draws: over 60 seeds the count never exceeds it and reaches it at least once."""
    counts, caps = [], set()
    for seed in range(60):
        tuning = privcd.tune_private(problem, "dp-cd", {"passes": [0.5], "step": [0.5], "clip": [1.0]}, epsilon=1.0,
                                     delta=0.9, seed=seed, mean_candidates=20.0, tail_share=0.99).info["tuning"]
        counts.append(tuning["count"])
        caps.add(tuning["cap"])
    (cap,) = caps
    assert max(counts) == cap and all(1 <= count <= cap for count in counts)


def test_same_seed_same_run_and_bad_inputs_are_clear_errors(problem):
    first = privcd.tune_private(problem, "dp-cd", GRID, epsilon=1.0, delta=1e-5, seed=9)
    second = privcd.tune_private(problem, "dp-cd", GRID, epsilon=1.0, delta=1e-5, seed=9)
    assert np.array_equal(first.w, second.w) and first.info["tuning"] == second.info["tuning"]
    with pytest.raises(ValueError, match="supports algorithm in \\['dp-cd', 'dp-gcd', 'dp-scd', 'dp-sgd', 'dp-skgd', "
                                         "'seqdp-scd'\\].*'dp-xyz'"):
        privcd.tune_private(problem, "dp-xyz", GRID, epsilon=1.0, delta=1e-5)
    with pytest.raises(ValueError, match="accountant='rdp' does not support sampling='poisson'"):
        privcd.tune_private(problem, "dp-sgd", GRID, epsilon=1.0, delta=1e-5, sampling="poisson")
    with pytest.raises(ValueError, match="accountant="):
        privcd.tune_private(problem, "dp-cd", GRID, epsilon=1.0, delta=1e-5, accountant="rdp")
    with pytest.raises(ValueError, match="missing \\['clip'\\]"):
        privcd.tune_private(problem, "dp-cd", {"passes": [1], "step": [1.0]}, epsilon=1.0, delta=1e-5)
    with pytest.raises(ValueError, match="epsilon=0.001 is below what selecting"):
        privcd.tune_private(problem, "dp-cd", GRID, epsilon=0.001, delta=1e-5, mean_candidates=1000.0)
    assert candidate_mu(1.0, delta=1e-5, shape=1.0, gamma=tnb_gamma(1.0, 10.0)) < 0.27  # below one run's mu at 1


def test_the_end_to_end_rows_of_a_problem(problem):
    from privcd.tuning.end_to_end import COLUMNS, PROTOCOLS, end_to_end_rows
    f_star = privcd.solve_nonprivate(problem).f_star
    arguments = dict(name="toy", algorithm="dp-cd", grid=GRID, defaults={"passes": 2, "step": 1.0, "clip": 1.0},
                     epsilons=(1.0, 4.0), delta=1e-5, runs=3, mean_candidates=4.0, base_seed=0)
    rows = end_to_end_rows(problem, f_star, **arguments)
    assert [(row["protocol"], row["epsilon"]) for row in rows] == [(p, e) for e in (1.0, 4.0) for p in PROTOCOLS]
    assert {row["algorithm"] for row in rows} == {"dp-cd"}
    for row in rows:
        assert set(row) == set(COLUMNS) and 0 <= row["error_min"] <= row["error_mean"] <= row["error_max"]
        assert row["runs"] == 3
    assert end_to_end_rows(problem, f_star, **arguments) == rows  # seeds from identity: same bits


def test_the_end_to_end_config_is_checked_against_the_experiment():
    from types import SimpleNamespace
    from privcd.tuning.end_to_end import EndToEndStudy
    experiment = SimpleNamespace(problems={"dp-cd/a": None, "dp-gcd/b": None})
    defaults = {"passes": 1, "step": 1.0, "clip": 1.0}
    section = {"problems": {"dp-cd": ["a"], "dp-gcd": ["b"]},
               "algorithms": {"dp-cd": {"grid": GRID, "defaults": defaults}, "dp-sgd": {"grid": GRID, "defaults": defaults}}}
    study = EndToEndStudy.from_config(section, experiment)
    assert study.problems == ("dp-cd/a", "dp-gcd/b") and study.epsilons == (0.5, 1.0, 2.0, 5.0, 10.0)
    assert [(name, problems) for name, _, _, problems in study.algorithms] == [("dp-cd", study.problems),
                                                                               ("dp-sgd", study.problems)]
    narrowed = {**section["algorithms"]["dp-sgd"], "problems": {"dp-cd": ["a"]}}
    study = EndToEndStudy.from_config({**section, "algorithms": {"dp-sgd": narrowed}}, experiment)
    assert study.algorithms[0][3] == ("dp-cd/a",)
    with pytest.raises(ValueError, match=r"end_to_end.algorithms.dp-sgd.problems: \['dp-gcd/c'\] are not problems"):
        EndToEndStudy.from_config({**section, "algorithms": {"dp-sgd": {**narrowed, "problems": {"dp-gcd": ["c"]}}}},
                                  experiment)

    def with_cd(**entry):
        return {**section, "algorithms": {"dp-cd": {"grid": GRID, "defaults": defaults, **entry}}}

    with pytest.raises(ValueError, match=r"\['dp-gcd/c'\] are not problems of the experiment"):
        EndToEndStudy.from_config({**section, "problems": {"dp-gcd": ["c"]}}, experiment)
    with pytest.raises(ValueError, match=r"end_to_end.algorithms.dp-xyz: private tuning supports"):
        EndToEndStudy.from_config({**section, "algorithms": {"dp-xyz": {"grid": GRID, "defaults": defaults}}},
                                  experiment)
    with pytest.raises(ValueError, match="missing 'clip'"):
        EndToEndStudy.from_config(with_cd(defaults={"passes": 1, "step": 1.0}), experiment)
    with pytest.raises(ValueError, match=r"unknown key\(s\) \['run'\]"):
        EndToEndStudy.from_config({**section, "run": 3}, experiment)
    with pytest.raises(ValueError, match=r"end_to_end.algorithms.dp-cd: unknown key\(s\) \['gird'\], missing key\(s\) \['grid'\]"):
        EndToEndStudy.from_config({**section, "algorithms": {"dp-cd": {"gird": GRID, "defaults": defaults}}}, experiment)
    # every grid value is checked when the config is read, not in the job
    with pytest.raises(ValueError, match=r"end_to_end.algorithms.dp-cd.grid.passes=-1"):
        EndToEndStudy.from_config(with_cd(grid={**GRID, "passes": [-1, 2]}), experiment)
    with pytest.raises(ValueError, match=r"end_to_end.algorithms.dp-cd.grid.clip=inf"):
        EndToEndStudy.from_config(with_cd(grid={**GRID, "clip": [1.0, float("inf")]}), experiment)
    with pytest.raises(ValueError, match=r"end_to_end.algorithms.dp-cd.grid: \['accountant'\] are not options private"):
        EndToEndStudy.from_config(with_cd(grid={**GRID, "accountant": "rdp"}), experiment)
    with pytest.raises(ValueError, match=r"end_to_end.algorithms.dp-cd.defaults: \['batch_size'\] are not options"):
        EndToEndStudy.from_config(with_cd(defaults={**defaults, "batch_size": 4}), experiment)
    with pytest.raises(ValueError, match=r"end_to_end.algorithms.dp-cd.grid: .*coordinate_order"):
        EndToEndStudy.from_config(with_cd(grid={**GRID, "coordinate_order": "sideways"}), experiment)


# -- candidates whose training composes sampled Gaussians (RDP) ------------------------------------

SGD_GRID = {"passes": [1, 3], "step": [0.1, 0.5], "clip": [0.1, 1.0]}


@pytest.mark.parametrize("algorithm, options", [("dp-sgd", {"batch_size": 16}), ("dp-scd", {"batch_size": 20}),
                                                ("dp-gcd", {})])
def test_rdp_accounted_training_is_tuned_within_its_total_and_spends_it(problem, algorithm, options):
    """The floor of issue 38: at most the target and at least 0.99 of it; each candidate ran at its
    family's calibrated noise, read from the store the selection was computed with."""
    run = privcd.tune_private(problem, algorithm, SGD_GRID, epsilon=1.0, delta=1e-5, seed=2, **options)
    tuning = run.info["tuning"]
    assert 0.99 < run.epsilon <= 1.0 and run.delta == 1e-5 and tuning["training_accountant"] == "rdp"
    assert "RDP-accounted" in run.accountant and tuning["mu_train"] is None
    passes = run.settings["passes"]
    longest = max(SGD_GRID["passes"])
    assert run.noise_multiplier == pytest.approx(tuning["noise_knob"] * math.sqrt(passes / longest), rel=1e-9)


def test_the_selection_of_sampled_candidates_is_dp_accountings_repeat_and_select(problem):
    """One family: privcd's selection epsilon against dp-accounting's RepeatAndSelectDpEvent of the
    candidate's event (T sampled Gaussian steps at the calibrated z, then the score's Gaussian)."""
    grid = {"passes": [2], "step": [0.5], "clip": [1.0]}
    run = privcd.tune_private(problem, "dp-sgd", grid, epsilon=2.0, delta=1e-5, seed=0, batch_size=16)
    tuning = run.info["tuning"]
    steps = 2 * problem.n_samples // 16
    training = dp_event.SelfComposedDpEvent(dp_event.SampledWithoutReplacementDpEvent(
        problem.n_samples, 16, dp_event.GaussianDpEvent(run.noise_multiplier)), steps)
    candidate = dp_event.ComposedDpEvent([training, dp_event.GaussianDpEvent(1.0 / tuning["mu_score"])])
    accountant = rdp_privacy_accountant.RdpAccountant(orders=list(ORDERS),
                                                      neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE)
    accountant.compose(dp_event.RepeatAndSelectDpEvent(candidate, tuning["mean_candidates"], tuning["shape"]))
    assert tuning["selection_epsilon"] == pytest.approx(accountant.get_epsilon(tuning["delta_rdp"]), rel=1e-6)


def test_the_selection_of_greedy_candidates_is_dp_accountings_repeat_and_select(problem):
    """DP-GCD: its 2T mechanisms as epsilon'-DP randomized responses (epsilon' the run's), then the
    score's Gaussian, through dp-accounting's RepeatAndSelectDpEvent; and each pure-DP mechanism's
    Renyi divergence as randomized response's, summed from the pair itself."""
    grid = {"passes": [5], "step": [0.5], "clip": [1.0]}
    run = privcd.tune_private(problem, "dp-gcd", grid, epsilon=2.0, delta=1e-5, seed=0)
    tuning = run.info["tuning"]
    epsilon_step = run.info["epsilon_per_mechanism"]
    p = 2.0 / (1.0 + math.exp(epsilon_step))
    training = dp_event.SelfComposedDpEvent(dp_event.RandomizedResponseDpEvent(p, 2), 2 * 5)
    candidate = dp_event.ComposedDpEvent([training, dp_event.GaussianDpEvent(1.0 / tuning["mu_score"])])
    accountant = rdp_privacy_accountant.RdpAccountant(orders=list(ORDERS),
                                                      neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE)
    accountant.compose(dp_event.RepeatAndSelectDpEvent(candidate, tuning["mean_candidates"], tuning["shape"]))
    assert tuning["selection_epsilon"] == pytest.approx(accountant.get_epsilon(tuning["delta_rdp"]), rel=1e-6)
    one = ReplaceOneRdpAccountant(orders=[2.0, 8.0, 64.0]).compose(privacy.pure_dp_composition_event(
        math.sqrt(2.0) / epsilon_step, 1))
    high, low = math.exp(epsilon_step) / (1 + math.exp(epsilon_step)), 1 / (1 + math.exp(epsilon_step))
    for order, value in zip((2.0, 8.0, 64.0), one.rdp):
        exact = math.log(high**order * low ** (1 - order) + low**order * high ** (1 - order)) / (order - 1)
        assert value == pytest.approx(exact, rel=1e-9)
