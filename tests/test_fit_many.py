"""privcd.fit_many: runs that share their draws, made in one kernel call, are the runs of privcd.fit."""
import numba
import numpy as np
import pytest

import privcd
from privcd.algorithms import ALGORITHM_MODULES, dp_cd, dp_sgd
from privcd.algorithms.base import kernel_key, kernel_rng
from privcd.kernels.dispatch import loss_variant
from privcd.kernels.dp_cd import BLOCK_ITERATIONS, ORDER_UNIFORM
from privcd.kernels.dp_cd_many import dp_cd_many, storage_variant
from privcd.kernels.dp_gcd import COLUMN_BLOCK, ROW_BLOCK, RULE_GS_Q, RULE_GS_R, dp_gcd, dp_gcd_many
from privcd.kernels import dp_sgd as dp_sgd_kernels
from privcd.kernels.dp_sgd import SAMPLE_POISSON, SAMPLE_WITHOUT_REPLACEMENT
from privcd.kernels.dp_sgd_many import LANE, TILE, dp_sgd_many
from privcd.kernels.layout import column_arrays, row_arrays
from privcd.privacy.reuse import CalibrationStore
from conftest import make_problem

INF = float("inf")
RUN_FIELDS = ("noise_multiplier", "epsilon", "delta", "accountant", "algorithm", "seed", "mode", "settings")


def assert_same_run(batched, alone):
    """Every number of the run but its timing, bit for bit; fit_many adds only ``info["shared_draws"]``
    (how many runs of its call have the run's seed)."""
    np.testing.assert_array_equal(batched.w, alone.w)
    np.testing.assert_array_equal(batched.snapshots, alone.snapshots)
    for column in ("iteration", "passes", "objective"):
        np.testing.assert_array_equal(batched.trace[column], alone.trace[column])
    for name in RUN_FIELDS:
        np.testing.assert_equal(getattr(batched, name), getattr(alone, name), err_msg=name)
    assert set(batched.info) - set(alone.info) <= {"shared_draws"} and batched.info.get("shared_draws", 2) >= 2
    np.testing.assert_equal({key: batched.info[key] for key in alone.info}, alone.info, err_msg="info")


def grid_of_runs(seeds, passes=2.0, **options):
    """Runs over a step x clip grid for each seed (and one other number of passes, which does not share)."""
    runs = [dict(epsilon=1.0, delta=1e-4, passes=passes, step=step, clip=clip, seed=seed, **options)
            for seed in seeds for step in (0.05, 0.3, 1.0) for clip in (0.1, 1.0, 10.0)]
    return runs + [dict(epsilon=1.0, delta=1e-4, passes=passes / 2, step=0.3, clip=1.0, seed=seeds[0], **options)]


@pytest.mark.parametrize("loss,penalty", [("logistic", "l2"), ("squared", "l1"), ("logistic", None)])
@pytest.mark.parametrize("options", [{}, {"batch_size": 7}, {"batch_size": 5, "accountant": "pld"}])
def test_dp_sgd_runs_made_together_are_the_runs_made_alone(storage, loss, penalty, options):
    problem = make_problem(loss, penalty, 0.05 if penalty else 0.0, sparse=storage == "sparse")
    runs = grid_of_runs([3, 11], checkpoints=4, **options)
    store = CalibrationStore()
    together = list(privcd.fit_many(problem, "dp-sgd", runs, calibrations=store))
    assert len(together) == len(runs)
    for batched, arguments in zip(together, runs):
        assert_same_run(batched, privcd.fit(problem, "dp-sgd", calibrations=store, **arguments))
    # the runs of one seed and shape shared one call: their kernel time is the call's, shared out
    assert len({run.seconds for run in together[:9]}) == 1


def test_dp_sgd_hinge_runs_made_together_are_the_runs_made_alone():
    problem = make_problem("hinge", "l2", 0.05, unit_rows=True)
    runs = grid_of_runs([5], batch_size=10)
    for batched, arguments in zip(privcd.fit_many(problem, "dp-sgd", runs), runs):
        assert_same_run(batched, privcd.fit(problem, "dp-sgd", **arguments))


def test_a_group_split_by_the_memory_bound_gives_the_same_runs(monkeypatch, storage):
    problem = make_problem("logistic", "l1", 0.05, sparse=storage == "sparse")
    runs = grid_of_runs([2])
    whole = list(privcd.fit_many(problem, "dp-sgd", runs))
    calls = []
    launch = dp_sgd.launch

    def counting_launch(kernel, *args):
        if kernel is dp_sgd_many:
            calls.append(len(args[-3]))  # the runs of the call: rows of W0 (before the storage markers)
        return launch(kernel, *args)
    monkeypatch.setattr(dp_sgd, "launch", counting_launch)
    # 3 checkpoints (2 passes) and w a run, and on dense X the gradient
    per_run = 8 * problem.n_features * (3 + (1 if problem.is_sparse else 2))
    monkeypatch.setattr(dp_sgd, "MAX_GROUP_BYTES", 2 * per_run)  # two runs per kernel call
    for split, alone in zip(privcd.fit_many(problem, "dp-sgd", runs), whole):
        assert_same_run(split, alone)
    assert calls == [2, 2, 2, 2]  # the 9 runs of the seed's group in pieces of 2, the 9th alone


@pytest.mark.parametrize("sampling", [SAMPLE_WITHOUT_REPLACEMENT, SAMPLE_POISSON])
@pytest.mark.parametrize("sparse", [False, True])
def test_dp_sgd_many_on_wide_x_is_dp_sgd_run_by_run(sampling, sparse):
    """More configurations than a lane, checkpoints inside a block and repeated. Sparse: more
    coordinates than a tile, so the block-wise path (support steps, then noise-only sweeps) is the
    step-by-step kernel, bit for bit. Dense: wide rows of odd length, whose blocks of normals all
    threads draw, all 60 steps in one block."""
    p = TILE + 700 if sparse else 2 * dp_sgd_kernels.WIDE_ROW_PAIRS + 1
    problem = make_problem("logistic", "l1", 0.02, n=40, p=p, density=0.01 if sparse else 0.4, sparse=sparse)
    K = LANE + 3
    rng = np.random.default_rng(4)
    steps, clips, stds = rng.uniform(0.01, 1.0, K), rng.uniform(0.1, 10.0, K), rng.uniform(0.0, 5.0, K)
    checkpoints = np.array([0, 5, 37, 37, 60])
    shared = (*row_arrays(problem), problem.y, problem.row_norms, problem.loss.code, problem.penalty.code,
              problem.lam)
    keys = (kernel_key(7, 0), kernel_key(7, 1))
    W, snapshots = dp_sgd_many(*shared, steps, clips, stds, 3, sampling, 60, checkpoints, *keys,
                               np.zeros((K, problem.n_features)), *storage_variant(problem.is_sparse))
    for k in range(K):
        w, alone = dp_sgd_kernels.dp_sgd(*shared, steps[k], clips[k], stds[k], 3, sampling, 60, checkpoints, *keys,
                          np.zeros(problem.n_features))
        np.testing.assert_array_equal(W[k], w)
        np.testing.assert_array_equal(snapshots[k], alone)
    assert np.count_nonzero(W[0]) > (TILE if sparse else p // 2)  # the noise moved them (beyond the first tile)
    if not sparse:  # the 60 steps in one block, its normals drawn at once
        assert dp_sgd_kernels.block_steps(p) == dp_sgd_kernels.MAX_BLOCK_STEPS


@pytest.mark.parametrize("p", [9, 2 * dp_sgd_kernels.WIDE_ROW_PAIRS])  # narrow rows; wide: normals drawn by all threads
@pytest.mark.parametrize("sparse", [False, True])
def test_dp_sgd_many_does_not_depend_on_the_number_of_threads(sparse, p):
    problem = make_problem("logistic", "l2", 0.05, n=300, p=p, sparse=sparse)
    K = 70  # more than two lanes of configurations
    rng = np.random.default_rng(0)
    steps, clips, stds = rng.uniform(0.01, 1.0, K), rng.uniform(0.1, 10.0, K), rng.uniform(0.0, 5.0, K)
    arguments = (*row_arrays(problem), problem.y, problem.row_norms, problem.loss.code, problem.penalty.code,
                 problem.lam, steps, clips, stds, 1, SAMPLE_WITHOUT_REPLACEMENT, 900, np.array([0, 450, 900]),
                 kernel_key(1, 0), kernel_key(1, 1), np.zeros((K, problem.n_features)),
                 *storage_variant(problem.is_sparse))
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        W1, snapshots1 = dp_sgd_many(*arguments)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        W2, snapshots2 = dp_sgd_many(*arguments)
    finally:
        numba.set_num_threads(threads)
    np.testing.assert_array_equal(W1, W2)
    np.testing.assert_array_equal(snapshots1, snapshots2)
    assert len(np.unique(W1[:, 0])) == K  # the configurations did differ


@pytest.mark.parametrize("loss,penalty", [("logistic", "l2"), ("squared", "l1"), ("logistic", None)])
@pytest.mark.parametrize("options", [{}, {"smoothness": "private"}, {"accountant": "exact"}])
def test_dp_cd_runs_made_together_are_the_runs_made_alone(storage, loss, penalty, options):
    problem = make_problem(loss, penalty, 0.05 if penalty else 0.0, sparse=storage == "sparse")
    runs = grid_of_runs([3, 11], passes=3.0, checkpoints=4, **options)
    runs.append(dict(epsilon=INF, delta=None, passes=3.0, step=0.5, clip=INF, seed=3, checkpoints=4, **options))
    store = CalibrationStore()
    together = list(privcd.fit_many(problem, "dp-cd", runs, calibrations=store))
    assert len(together) == len(runs)
    for batched, arguments in zip(together, runs):
        assert_same_run(batched, privcd.fit(problem, "dp-cd", calibrations=store, **arguments))
    assert len({run.seconds for run in together[:9]}) == 1  # one call for the seed's 3 x 3 grid


def test_dp_cd_runs_with_averaging_run_alone(monkeypatch):
    problem = make_problem("squared", "l1", 0.05)
    runs = grid_of_runs([4], inner_iterations=7)
    monkeypatch.setattr(dp_cd, "dp_cd_many", lambda *args: pytest.fail("averaging runs in lockstep"))
    for batched, arguments in zip(privcd.fit_many(problem, "dp-cd", runs), runs):
        assert_same_run(batched, privcd.fit(problem, "dp-cd", **arguments))


@pytest.mark.parametrize("sparse", [False, True])
def test_dp_cd_many_does_not_depend_on_the_number_of_threads(sparse):
    problem = make_problem("logistic", "l2", 0.05, n=200, p=12, sparse=sparse)
    K, p = 70, problem.n_features  # more than two lanes of configurations
    rng = np.random.default_rng(0)
    step_sizes, thresholds, stds = (rng.uniform(low, high, (p, K)) for low, high in ((0.1, 1.0), (0.01, 1.0),
                                                                                        (0.0, 0.1)))
    n_iterations = 3 * BLOCK_ITERATIONS // 2  # one and a half blocks
    checkpoints = np.array([0, 700, BLOCK_ITERATIONS, BLOCK_ITERATIONS, n_iterations])

    def run():
        return dp_cd_many(*column_arrays(problem), problem.y, problem.loss.code, problem.penalty.code,
                          problem.lam, step_sizes, thresholds, stds, n_iterations, checkpoints, kernel_rng(5),
                          np.zeros((K, p)), ORDER_UNIFORM, *storage_variant(problem.is_sparse),
                          *loss_variant(problem.loss.code))
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        W1, snapshots1 = run()
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        W2, snapshots2 = run()
    finally:
        numba.set_num_threads(threads)
    np.testing.assert_array_equal(W1, W2)
    np.testing.assert_array_equal(snapshots1, snapshots2)
    np.testing.assert_array_equal(snapshots1[:, -1], W1)
    assert len(np.unique(W1[:, 0])) == K  # the configurations did differ


@pytest.mark.parametrize("loss,penalty,rule", [("logistic", "l2", None), ("squared", "l1", "gs-s"),
                                               ("logistic", "l1", "gs-r"), ("squared", "l1", "gs-q")])
def test_dp_gcd_runs_made_together_are_the_runs_made_alone(storage, loss, penalty, rule):
    problem = make_problem(loss, penalty, 0.05, sparse=storage == "sparse")
    runs = grid_of_runs([3, 11], passes=12.0, rule=rule, checkpoints=5)
    runs.append(dict(epsilon=INF, delta=None, passes=12.0, step=0.5, clip=INF, seed=3, rule=rule, checkpoints=5))
    together = list(privcd.fit_many(problem, "dp-gcd", runs))
    for batched, arguments in zip(together, runs):
        alone = privcd.fit(problem, "dp-gcd", **arguments)
        assert_same_run(batched, alone)
        np.testing.assert_array_equal(batched.info["selected"], alone.info["selected"])
    assert len({run.seconds for run in together[:9]}) == 1  # one call for the seed's 3 x 3 grid
    assert len({run.w.tobytes() for run in together[:9]}) > 1  # the configurations did differ


def test_dp_gcd_many_does_not_depend_on_the_number_of_threads():
    problem = make_problem("squared", "l1", 0.05, n=150, p=40, sparse=True)
    K, p = 5, problem.n_features
    rng = np.random.default_rng(1)
    step_sizes, thresholds, selection, release = (rng.uniform(0.05, 1.0, (K, p)) for _ in range(4))
    n_iterations = 44

    def run():
        return dp_gcd_many(*column_arrays(problem), problem.y, problem.loss.code, problem.penalty.code,
                           problem.lam, problem.M, step_sizes, thresholds, selection, release, RULE_GS_Q,
                           n_iterations, np.array([0, 10, 10, 29, n_iterations]), kernel_rng(2), np.zeros((K, p)))
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        first = run()
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        second = run()
    finally:
        numba.set_num_threads(threads)
    for one, two in zip(first, second):
        np.testing.assert_array_equal(one, two)
    assert len({tuple(path) for path in first[2]}) > 1  # the configurations did differ


@pytest.mark.parametrize("sparse", [False, True])
def test_dp_gcd_solo_kernel_shares_its_gradient_among_threads_without_changing_a_bit(sparse):
    """The solo kernel's prange over row and column blocks against its one-thread self and the
    lockstep kernel, which computes every gradient on one thread."""
    n, p = 2 * ROW_BLOCK + 100, 5 * COLUMN_BLOCK + 3  # a partial block of rows and of columns
    problem = make_problem("logistic", "l1", 0.01, n=n, p=p, sparse=sparse)
    rng = np.random.default_rng(3)
    step_sizes, thresholds, selection, release = (rng.uniform(0.05, 1.0, p) for _ in range(4))
    n_iterations, checkpoints = 30, np.array([0, 11, 30])
    arguments = (*column_arrays(problem), problem.y, problem.loss.code, problem.penalty.code, problem.lam, problem.M)
    tail = (RULE_GS_R, n_iterations, checkpoints)
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = dp_gcd(*arguments, step_sizes, thresholds, selection, release, *tail, kernel_rng(4), np.zeros(p))
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = dp_gcd(*arguments, step_sizes, thresholds, selection, release, *tail, kernel_rng(4), np.zeros(p))
    finally:
        numba.set_num_threads(threads)
    lockstep = dp_gcd_many(*arguments, *(a[None] for a in (step_sizes, thresholds, selection, release)), *tail,
                           kernel_rng(4), np.zeros((1, p)))
    for solo, other, batched in zip(one, two, lockstep):
        np.testing.assert_array_equal(solo, other)
        np.testing.assert_array_equal(solo, batched[0])
    assert len(set(one[2])) > 3  # several coordinates were selected


@pytest.mark.parametrize("module", ALGORITHM_MODULES, ids=lambda module: module.NAME)
def test_every_algorithm_runs_through_fit_many_as_through_fit(module):
    """Algorithms without run_many run one by one; those with it group by seed."""
    loss = "hinge" if module.NAME in ("dp-scd", "seqdp-scd") else "logistic"
    problem = make_problem(loss, "l2", 0.05, unit_rows=True)
    runs = [dict(epsilon=1.0, delta=1e-4, passes=1.0, step=step, clip=1.0, seed=seed)
            for seed in (1, 2) for step in (0.1, 0.5)]
    for batched, arguments in zip(privcd.fit_many(problem, module.NAME, runs), runs):
        assert_same_run(batched, privcd.fit(problem, module.NAME, **arguments))


def test_fit_many_checks_every_run_before_running_any():
    problem = make_problem("logistic", "l2", 0.05)
    runs = [dict(epsilon=1.0, delta=1e-4, passes=1.0, step=0.1, clip=1.0, seed=1),
            dict(epsilon=1.0, delta=1e-4, passes=1.0, step=-0.1, clip=1.0, seed=1)]
    with pytest.raises(ValueError, match="step"):
        next(privcd.fit_many(problem, "dp-sgd", runs))
