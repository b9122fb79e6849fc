"""Mironov's attack on Gaussian noise (privcd.auditing.reachability.reachable_gaussian_step, issue 35):
the search over every double agrees with a brute-force enumeration; the forward models reach every
step the kernels take; an experiment's floating-point steps are often unreachable from the
neighbour, a release's grid steps never."""
import math

import numpy as np
import pytest

import privcd
from privcd.auditing import audit, floating_point
from privcd.auditing.reachability import (LARGEST_KEY, double_of_key, dual_step, gaussian_step,
                                          reachable_dual_step, reachable_gaussian_step)

GAUSSIAN_ALGORITHMS = ["dp-cd", "dp-skgd", "dp-sgd", "dp-scd"]
MODELS = {**{algorithm: (algorithm, floating_point.FORWARD_MODELS[algorithm]) for algorithm in GAUSSIAN_ALGORITHMS},
          "dp-sgd-sampled": ("dp-sgd", floating_point.SAMPLED_SGD)}
RUNS = 400


def test_keys_order_the_doubles():
    assert double_of_key(0) == 0.0 and double_of_key(0x3FF0000000000000) == 1.0
    assert double_of_key(-0x3FF0000000000000) == -1.0
    assert double_of_key(LARGEST_KEY) == np.finfo(float).max and double_of_key(-LARGEST_KEY) == -np.finfo(float).max
    keys = np.sort(np.random.default_rng(1).integers(-LARGEST_KEY, LARGEST_KEY, 1000))
    values = [double_of_key(int(key)) for key in keys]
    assert values == sorted(values)
    assert double_of_key(1) == math.nextafter(0.0, 1.0)


def test_the_search_agrees_with_a_brute_force_enumeration():
    """``fl(1.5 g)`` misses a third of the doubles in [1.5, 2): for 300 doubles there, reachability
    by the search equals an enumeration of the 16 doubles g nearest ``y / 1.5``; some are missed."""
    rng = np.random.default_rng(2)
    missed = 0
    for observed in -rng.uniform(1.5, 2.0, 300):
        centre = -observed / 1.5
        candidates = [centre]
        for _ in range(8):
            candidates += [math.nextafter(candidates[-1], math.inf)]
        low = centre
        for _ in range(8):
            low = math.nextafter(low, -math.inf)
            candidates.append(low)
        brute = any(gaussian_step(g, 0.0, 1.5, 1.0) == observed for g in candidates)
        assert reachable_gaussian_step(observed, 0.0, 1.5, 1.0) == brute, observed
        missed += not brute
    assert 60 <= missed <= 140  # about a third


def test_the_dual_search_agrees_with_a_brute_force_enumeration():
    """DP-SCD's ``fl(fl(v + fl(s g)) / n)``: for 300 doubles y near ``(v + s) / n``, reachability by the
    search equals an enumeration of the 16 doubles g nearest ``(y n - v) / s``; some are missed."""
    rng = np.random.default_rng(3)
    value, scale, lam_n = -2.0, 0.7, 50.0
    missed = 0
    for observed in rng.uniform((value + scale) / lam_n, (value + 1.3 * scale) / lam_n, 300):
        centre = (observed * lam_n - value) / scale
        candidates = [centre]
        for direction in (math.inf, -math.inf):
            g = centre
            for _ in range(8):
                g = math.nextafter(g, direction)
                candidates.append(g)
        brute = any(dual_step(g, value, scale, lam_n) == observed for g in candidates)
        assert reachable_dual_step(observed, value, scale, lam_n) == brute, observed
        missed += not brute
    assert missed > 0


@pytest.mark.parametrize("name", MODELS)
def test_an_experiments_gaussian_steps_are_reached_from_d_and_often_not_from_d_prime(name):
    """The forward model reaches each of D's steps (the kernel's arithmetic, in its order); a share of
    them no double reaches from D' (measured at (2, 1e-5), 500 runs: DP-CD and DP-SkGD 164, DP-SGD
    56; 400 runs: DP-SCD 137). Sampled DP-SGD's batch holds D's canary half of the time, and its
    step is then reached from one of D's two possible sums only."""
    algorithm, model = MODELS[name]
    problem, other = model.neighbours()
    unreachable = 0
    for seed in range(RUNS):
        run = privcd.fit(problem, algorithm, epsilon=2.0, delta=1e-5, seed=seed,
                         **{**floating_point.ARGUMENTS, **model.options})
        scale, factor = model.scale(run), model.factor(problem, run)
        assert any(model.reachable(run.w[0], value, scale, factor) for value in model.values(problem, run)), seed
        unreachable += not any(model.reachable(run.w[0], value, scale, factor) for value in model.values(other, run))
    assert unreachable >= 0.05 * RUNS


@pytest.mark.parametrize("name", MODELS)
def test_a_releases_grid_steps_are_all_reachable_on_a_public_grid(name):
    algorithm, model = MODELS[name]
    problem, other = model.neighbours()
    arguments = dict(epsilon=2.0, delta=1e-5, **{**floating_point.ARGUMENTS, **model.options})
    spacings = set()
    for _ in range(100):
        run = privcd.fit(problem, algorithm, **arguments)
        spacing = floating_point.first_entry(run.info["grid_spacing"])
        spacings.add(spacing)
        step = run.w[0]
        assert model.release_reachable(step, spacing, model.factor(problem, run))
        assert not model.release_reachable(math.nextafter(step, math.inf), spacing, model.factor(problem, run))
    neighbour = privcd.fit(other, algorithm, **arguments)
    assert spacings == {floating_point.first_entry(neighbour.info["grid_spacing"])}  # public: D' has it too


@pytest.mark.parametrize("algorithm, options", [("dp-cd", {}), ("dp-sgd", {}), ("dp-scd", {}),
                                                ("dp-sgd", {"batch_size": floating_point.SAMPLED_BATCH}),
                                                ("dp-skgd", {"sketch": "full", "noise": "coordinate"}),
                                                ("dp-skgd", {"sketch": "tau-nice", "tau": 1, "noise": "coordinate"})])
def test_the_floating_point_audit_catches_a_gaussian_experiment_and_not_a_release(algorithm, options):
    """Block sketches run :func:`privcd.kernels.dp_skgd.block_step`, not DP-CD's kernel: on one feature
    their block is ``{0}`` and the same attack applies to its arithmetic."""
    experiment = audit(algorithm, epsilon=2.0, delta=1e-5, attack="floating-point", runs=1000, **options)
    assert experiment.epsilon_lower == math.inf and experiment.delta_lower > 0.05
    assert {key: experiment.options[key] for key in options} == options
    release = audit(algorithm, epsilon=2.0, delta=1e-5, attack="floating-point", runs=200, release=True, **options)
    assert release.delta_lower == 0.0 and release.epsilon_lower == 0.0


def test_the_attack_refuses_what_a_release_refuses():
    """DP-SkGD's importance sketch has no release (its block size varies): the attack says so rather
    than attacking another sketch."""
    with pytest.raises(ValueError, match="sketch='importance'"):
        audit("dp-skgd", epsilon=2.0, delta=1e-5, attack="floating-point", runs=10, release=True,
              sketch="importance", probabilities="smoothness", tau=1)
