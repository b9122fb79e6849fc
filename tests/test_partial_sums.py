"""The fixed summation order of kernels/partial_sums.py, against a numpy replay of its docstring,
and the runs that rest on it: the same bits dense or sparse, alone or in lockstep, on 1 or 2
threads, once the samples are cut into row blocks."""
import numba
import numpy as np
import pytest
import scipy.sparse as sp

import privcd
from privcd.kernels.dp_skgd import _dense_clipped_sum
from privcd.kernels.layout import column_arrays
from privcd.kernels.linalg import clipped_coordinate_gradient_sum, threaded_lagged_clipped_gradient_sum
from privcd.kernels.dp_cd import step_variant
from privcd.kernels.partial_sums import BLOCKED_FROM, scratch
from privcd.losses import squared

THRESHOLD = 0.8


def documented_sum(terms):
    """The order of the module docstring: one block below 8,192 samples, else 8 blocks of
    ``32 ceil(n / 256)`` rows; in a block, 32 sequential partial sums by row modulo 32 combined
    pairwise (h = 16, 8, 4, 2, 1); the block totals added in block order from 0."""
    n = len(terms)
    size = n if n < 8192 else 32 * -(-n // 256)
    total = 0.0
    for first in range(0, n, size):
        block = terms[first:first + size]
        partials = [np.cumsum(np.concatenate([[0.0], block[r::32]]))[-1] for r in range(32)]
        half = 16
        while half:
            partials = [partials[r] + partials[r + half] for r in range(half)]
            half //= 2
        total += partials[0]
    return total


def column_problem(n, seed):
    """A squared-loss problem whose column 0 is dense and column 1 stores entries in only two of the
    blocks (rows 3-40 and the last 50 rows): the sparse sum skips the empty blocks."""
    rng = np.random.default_rng(seed)
    X = np.zeros((n, 3))
    X[:, 0] = rng.normal(size=n)
    X[3:41, 1] = rng.normal(size=38)
    X[n - 50:, 1] = rng.normal(size=50)
    X[:, 2] = rng.normal(size=n) * (rng.random(n) < 0.3)
    y = rng.normal(size=n)
    return X, y


@pytest.mark.parametrize("n", [100, BLOCKED_FROM - 1, BLOCKED_FROM, 20_640, 45_313])
def test_clipped_sums_follow_the_documented_order_dense_sparse_and_threaded(n):
    X, y = column_problem(n, n)
    z = np.random.default_rng(1).normal(size=n)
    dense = privcd.Problem(X, y, "squared", None, 0.0)
    sparse = privcd.Problem(sp.csc_matrix(X), y, "squared", None, 0.0)
    threads = numba.get_num_threads()
    for j in range(3):
        terms = np.clip(2.0 * (z - y) * X[:, j], -THRESHOLD, THRESHOLD)
        expected = documented_sum(terms)
        for problem in (dense, sparse):
            got = clipped_coordinate_gradient_sum(*column_arrays(problem), j, z, y, squared.CODE, THRESHOLD, scratch(n))
            assert got == expected
        derivatives = 2.0 * (z - y)
        assert _dense_clipped_sum(derivatives, np.asfortranarray(X), j, THRESHOLD, scratch(n)) == expected
        try:
            for count in (1, min(2, numba.config.NUMBA_NUM_THREADS)):
                numba.set_num_threads(count)
                got = threaded_lagged_clipped_gradient_sum(np.asfortranarray(X), 0, 0.0, j, z.copy(), y, squared.CODE,
                                                           THRESHOLD, scratch(n))
                assert got == expected
        finally:
            numba.set_num_threads(threads)


@pytest.mark.parametrize("loss", ["logistic", "squared"])
def test_dp_cd_on_row_blocks_has_the_same_bits_dense_sparse_lockstep_and_on_one_thread(loss):
    n = 2 * BLOCKED_FROM + 77
    X, y = column_problem(n, 7)
    if loss == "logistic":
        y = np.where(y > 0, 1.0, -1.0)
    dense = privcd.Problem(X, y, loss, "l2", 0.001)
    sparse = privcd.Problem(sp.csc_matrix(X), y, loss, "l2", 0.001)
    variants = {step_variant(is_sparse, n, threads) for is_sparse, threads in ((False, 1), (False, 2), (True, 2))}
    assert variants == {(None, None, True), (None, True, None), (True, None, None)}  # each of dp_cd's copies runs
    runs = [dict(epsilon=1.0, delta=1e-6, passes=30, step=step, clip=1.0, seed=2, checkpoints=3)
            for step in (0.9, 0.4)]
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one_thread = privcd.fit(dense, "dp-cd", **runs[0])
    finally:
        numba.set_num_threads(threads)
    alone = privcd.fit(dense, "dp-cd", **runs[0])
    assert np.count_nonzero(alone.w) == 3
    for other in [one_thread, privcd.fit(sparse, "dp-cd", **runs[0]), list(privcd.fit_many(dense, "dp-cd", runs))[0],
                  list(privcd.fit_many(sparse, "dp-cd", runs))[0], privcd.fit(dense, "dp-skgd", **runs[0])]:
        assert np.array_equal(other.w, alone.w)
        assert other.history["objective"].equals(alone.history["objective"])
