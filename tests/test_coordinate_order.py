"""DP-CD's coordinate orders (option ``coordinate_order``): what each visits, the permutation's law,
the same bits alone and in lockstep, DP-SkGD's uniform sketch, and the unchanged accounting."""
import itertools

import numpy as np
import pytest
import scipy.stats

import privcd
from privcd.algorithms.base import kernel_rng
from privcd.kernels.dp_cd import BLOCK_ITERATIONS, ORDER_CYCLIC, ORDER_PERMUTATION, ORDER_UNIFORM, draw_block
from conftest import make_problem

ORDERS = ("uniform", "permutation", "cyclic")


def drawn_coordinates(order, p, n_iterations, seed=3):
    """The coordinates and normals the kernels' :func:`draw_block` gives ``n_iterations`` iterations,
    block by block as the kernels call it."""
    rng = kernel_rng(seed)
    coordinates, normals = np.empty(BLOCK_ITERATIONS, dtype=np.int64), np.empty(BLOCK_ITERATIONS)
    permutation = np.empty(p, dtype=np.int64)
    taken, drawn = [], []
    for start in range(0, n_iterations, BLOCK_ITERATIONS):
        block = min(BLOCK_ITERATIONS, n_iterations - start)
        draw_block(rng, p, coordinates, normals, block, start, order, permutation)
        taken.append(coordinates[:block].copy())
        drawn.append(normals[:block].copy())
    return np.concatenate(taken), np.concatenate(drawn)


@pytest.mark.parametrize("p", [7, 1000, 1500])  # passes that straddle the blocks of 1,024 iterations
def test_a_permutation_visits_every_coordinate_once_a_pass(p):
    coordinates, _ = drawn_coordinates(ORDER_PERMUTATION, p, 3 * p + 5)
    passes = [coordinates[start:start + p] for start in range(0, 3 * p, p)]
    for visited in passes:
        assert np.array_equal(np.sort(visited), np.arange(p))
    assert not all(np.array_equal(passes[0], other) for other in passes[1:])  # a fresh permutation each pass
    assert len(set(coordinates[3 * p:])) == 5  # the unfinished pass starts a new permutation


def test_cyclic_takes_the_coordinates_in_turn_and_uniform_is_the_generators_integers():
    p, n_iterations = 9, 2 * BLOCK_ITERATIONS + 17
    cyclic, cyclic_normals = drawn_coordinates(ORDER_CYCLIC, p, n_iterations)
    assert np.array_equal(cyclic, np.arange(n_iterations) % p)
    reference = kernel_rng(3)
    assert np.array_equal(cyclic_normals, reference.standard_normal(n_iterations))  # nothing drawn for j
    uniform, _ = drawn_coordinates(ORDER_UNIFORM, p, n_iterations)
    reference = kernel_rng(3)
    draws = [(reference.integers(0, p), reference.standard_normal()) for _ in range(n_iterations)]
    assert np.array_equal(uniform, [j for j, _ in draws])


def test_the_permutation_of_each_pass_is_uniform():
    """Pearson's chi-square over the 24 permutations of [4] from 24,000 passes (Fisher-Yates with
    an off-by-one bias would put a permutation 1.5x too often and fail by far)."""
    p, passes = 4, 24_000
    coordinates, _ = drawn_coordinates(ORDER_PERMUTATION, p, p * passes)
    counts = {permutation: 0 for permutation in itertools.permutations(range(p))}
    for visited in coordinates.reshape(passes, p):
        counts[tuple(visited)] += 1
    assert scipy.stats.chisquare(list(counts.values())).pvalue > 1e-4


@pytest.mark.parametrize("sparse", [False, True])
def test_every_order_has_the_same_bits_alone_and_in_lockstep(sparse):
    problem = make_problem("logistic", "l2", 0.02, n=150, p=11, sparse=sparse)
    runs = [dict(epsilon=1.0, delta=1e-5, passes=5, step=step, clip=clip, seed=2, coordinate_order=order)
            for order in ORDERS for step, clip in ((0.5, 1.0), (0.9, 0.1))]
    together = list(privcd.fit_many(problem, "dp-cd", runs))
    for arguments, run in zip(runs, together):
        alone = privcd.fit(problem, "dp-cd", **arguments)
        assert np.array_equal(alone.w, run.w) and np.array_equal(alone.snapshots, run.snapshots)
        assert run.settings["coordinate_order"] == arguments["coordinate_order"]
    finals = [run.w for run in together[::2]]
    assert not np.array_equal(finals[0], finals[1]) and not np.array_equal(finals[1], finals[2])


@pytest.mark.parametrize("order", ORDERS)
def test_the_accounting_does_not_depend_on_the_order(order):
    problem = make_problem("squared", "l1", 0.1)
    run = privcd.fit(problem, "dp-cd", epsilon=1.0, delta=1e-5, passes=3, step=0.5, clip=1.0,
                     coordinate_order=order)
    default = privcd.fit(problem, "dp-cd", epsilon=1.0, delta=1e-5, passes=3, step=0.5, clip=1.0)
    assert run.noise_multiplier == default.noise_multiplier and run.epsilon == default.epsilon


@pytest.mark.parametrize("order", ORDERS)
def test_dp_skgd_uniform_sketch_takes_dp_cds_order(order):
    problem = make_problem("squared", "l1", 0.1, sparse=True)
    common = dict(epsilon=1.0, delta=1e-5, passes=3, step=0.5, clip=1.0, seed=7, coordinate_order=order)
    cd, skgd = privcd.fit(problem, "dp-cd", **common), privcd.fit(problem, "dp-skgd", sketch="uniform", **common)
    assert np.array_equal(cd.w, skgd.w)


def test_the_orders_of_dp_cd_p_draw_their_own_coordinates():
    problem = make_problem("logistic", "l2", 0.02)
    common = dict(epsilon=1.0, delta=1e-5, passes=4, step=0.5, clip=1.0, seed=1, smoothness="private")
    uniform = privcd.fit(problem, "dp-cd", **common)
    cyclic = privcd.fit(problem, "dp-cd", coordinate_order="cyclic", **common)
    assert np.array_equal(uniform.info["M_private"], cyclic.info["M_private"])
    assert not np.array_equal(uniform.w, cyclic.w)


def test_bad_orders_are_named():
    problem = make_problem("squared", "l1", 0.1)
    with pytest.raises(ValueError, match="coordinate_order.*'shuffled'"):
        privcd.fit(problem, "dp-cd", epsilon=1.0, delta=1e-5, passes=1, step=0.5, clip=1.0,
                   coordinate_order="shuffled")
    with pytest.raises(ValueError, match="coordinate_order='cyclic' applies to sketch='uniform' only"):
        privcd.fit(problem, "dp-skgd", epsilon=1.0, delta=1e-5, passes=1, step=0.5, clip=1.0,
                   sketch="tau-nice", tau=2, coordinate_order="cyclic")
