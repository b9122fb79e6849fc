"""Mironov's reachability attack on DP-GCD's release step (privcd.auditing.reachability): its forward
model is the kernel's step bit for bit; it finds an experiment's floating-point Laplace releases
unreachable from a neighbour (the positive control), and no release's grid step unreachable."""
import pytest

import privcd
from privcd.algorithms.base import coordinate_step_sizes, kernel_rng
from privcd.auditing import audit, floating_point
from privcd.auditing.reachability import dp_gcd_step, reachable_grid_step, reachable_dp_gcd_step

RUNS = 2000
ARGUMENTS = dict(epsilon=2.0, delta=1e-5, **floating_point.ARGUMENTS)


def gradient(problem):
    """The one clipped gradient at w = 0 that DP-GCD's first step can release on ``problem``."""
    (value,) = floating_point.first_gradient(problem, None)
    return value


@pytest.fixture(scope="module")
def neighbours():
    return floating_point.neighbours()


def test_the_forward_model_is_the_kernels_step(neighbours):
    problem = neighbours[0]
    gamma = coordinate_step_sizes(problem.M, ARGUMENTS["step"])[0]
    for seed in range(20):
        run = privcd.fit(problem, "dp-gcd", seed=seed, **ARGUMENTS)
        rng = kernel_rng(seed)
        rng.random()  # the selection's draw
        index = int(rng.random() * 2.0**53)  # the release's
        assert dp_gcd_step(index, gradient(problem), run.info["release_scale"][0], gamma) == run.w[0]


def test_an_experiments_laplace_steps_are_often_unreachable_from_the_neighbour(neighbours):
    problem, other = neighbours
    gamma = coordinate_step_sizes(problem.M, ARGUMENTS["step"])[0]
    unreachable = 0
    for seed in range(RUNS):
        run = privcd.fit(problem, "dp-gcd", seed=seed, **ARGUMENTS)
        scale = run.info["release_scale"][0]
        assert reachable_dp_gcd_step(run.w[0], gradient(problem), scale, gamma)
        unreachable += not reachable_dp_gcd_step(run.w[0], gradient(other), scale, gamma)
    assert unreachable / RUNS > 0.5  # delta >= 0.5 at any epsilon (measured: 1,644 of 2,000, 0.82)


def test_no_release_step_is_unreachable_from_the_neighbour(neighbours):
    problem, other = neighbours
    gamma = coordinate_step_sizes(problem.M, ARGUMENTS["step"])[0]
    spacings = set()
    for _ in range(RUNS):
        run = privcd.fit(problem, "dp-gcd", **ARGUMENTS)
        spacing = run.info["grid_spacing"][0]
        spacings.add(spacing)
        assert reachable_grid_step(run.w[0], spacing, gamma)
    neighbour = privcd.fit(other, "dp-gcd", **ARGUMENTS)
    assert spacings == {neighbour.info["grid_spacing"][0]}  # public: the same grid under D'


def test_the_floating_point_audit_catches_an_experiment_and_not_a_release():
    """``privcd.audit(..., attack="floating-point")``: an experiment's DP-GCD (floating-point Laplace)
    is caught, delta >= 0.79 at every epsilon with 95% (measured: 1,644 of 2,000 unreachable), a
    claim of delta 1e-5 false, so the bound is infinite; a release's grid steps are all reachable."""
    experiment = audit("dp-gcd", epsilon=2.0, delta=1e-5, attack="floating-point", runs=RUNS)
    assert experiment.statistic == "floating-point" and experiment.delta_lower > 0.75
    assert experiment.epsilon_lower == float("inf") and experiment.counts.false_positives == 0
    release = audit("dp-gcd", epsilon=2.0, delta=1e-5, attack="floating-point", runs=200, release=True)
    assert release.delta_lower == 0.0 and release.epsilon_lower == 0.0 and release.counts.false_negatives == 200
    with pytest.raises(ValueError, match="forward model for \\['dp-cd', 'dp-gcd', 'dp-scd', 'dp-sgd', 'dp-skgd'\\], "
                                         "not 'seqdp-scd'"):
        audit("seqdp-scd", epsilon=2.0, delta=1e-5, attack="floating-point", runs=10)
    with pytest.raises(ValueError, match="release=True is the floating-point attack's mode"):
        audit("dp-gcd", epsilon=2.0, delta=1e-5, runs=10, release=True)
    with pytest.raises(ValueError, match="attack='bits'"):
        audit("dp-gcd", epsilon=2.0, delta=1e-5, attack="bits", runs=10)
