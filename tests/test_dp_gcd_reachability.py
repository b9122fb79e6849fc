"""Mironov's reachability attack on DP-GCD's release step (privcd.auditing.reachability): its forward
model is the kernel's step bit for bit; it finds an experiment's floating-point Laplace releases
unreachable from a neighbour (the positive control), and no release's grid step unreachable."""
import numpy as np
import pytest

import privcd
from privcd.algorithms.base import coordinate_step_sizes, kernel_rng
from privcd.auditing.reachability import dp_gcd_step, reachable_dp_gcd_grid_step, reachable_dp_gcd_step

RUNS = 2000
N = 50
ARGUMENTS = dict(epsilon=2.0, delta=1e-5, passes=1, step=1.0, clip=1.0)


def dataset(first_label):
    """One feature x_i = 1, labels alternating from ``first_label``; neighbours differ in record 0."""
    y = np.where(np.arange(N) % 2 == 0, 1.0, -1.0)
    y[0] = first_label
    return privcd.Problem(np.ones((N, 1)), y, "logistic", None, 0.0, constants="data")


def gradient(problem):
    """The kernel's clipped gradient at w = 0: ``(1/n) sum_i clip(-y_i / 2, C)``, summed in row order
    (every term is +-1/2, so the sum is exact)."""
    total = 0.0
    for label in problem.y:
        total += -label * 0.5
    return total / problem.n_samples


@pytest.fixture(scope="module")
def neighbours():
    return dataset(1.0), dataset(-1.0)


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
        assert reachable_dp_gcd_grid_step(run.w[0], spacing, gamma)
    neighbour = privcd.fit(other, "dp-gcd", **ARGUMENTS)
    assert spacings == {neighbour.info["grid_spacing"][0]}  # public: the same grid under D'
