"""DP-CD in lockstep: K configurations without averaging that share their coordinates and normals
(:mod:`privcd.kernels.dp_cd`: drawn from the run's generator alone) take each block of iterations
together, configuration k bit for bit the solo :func:`privcd.kernels.dp_cd.dp_cd` (:func:`privcd.fit_many`).
"""
import numpy as np
from numba import njit, prange

from privcd.kernels.copy_values import copy_values
from privcd.kernels.dp_cd import BLOCK_ITERATIONS, coordinate_update, draw_block, noisy_proximal_update
from privcd.kernels.linalg import clipped_entry, matvec_columns
from privcd.kernels.partial_sums import PARTIALS, block_rows, combine_columns, scratch
from privcd.kernels.prefetch import DISTANCE, LINE_DOUBLES, prefetch, prefetch_column
from privcd.losses import logistic, squared
LANE = 32  # configurations a thread takes through a block of iterations (dp_cd_many)


@njit(cache=True, parallel=True)
def dp_cd_many(is_sparse, Xf, data, indices, indptr, y, loss_code, penalty_code, lam, step_sizes, thresholds,
               noise_std, n_iterations, checkpoints, rng, W0, order, sparse, dense, logistic, squared, other):
    """Run K configurations of DP-CD without averaging that share their random draws, in lockstep:
    configuration k is ``dp_cd(..., step_sizes[:, k], thresholds[:, k], noise_std[:, k], ...,
    n_iterations, 0, checkpoints, rng, W0[k], order)`` with every configuration given a generator in the
    state of ``rng``, bit for bit.

    DP-CD's coordinates and normals come from the generator alone (module docstring), never from
    w, the step sizes, the thresholds or the noise scales: they are drawn once here for all K, a
    block of :data:`BLOCK_ITERATIONS` at a time, and a ``prange`` over lanes of at most
    :data:`LANE` configurations (as few lanes as that allows, of equal widths) takes every
    configuration through the block, each with the solo kernel's arithmetic, so the result does
    not depend on the number of threads. Dense X: one configuration after the other, each step a
    pass over its residuals (:func:`_dense_lane`). Sparse X: iteration by iteration, the lane's
    configurations side by side in SIMD lanes (:func:`_sparse_lane`), their residuals stored as
    the rows of ``Z`` of shape (n, K); on wide sparse X a configuration-step costs about a third of
    a solo step (benchmarks/README.md).

    Parameters
    ----------
    step_sizes, thresholds, noise_std : ndarray of shape (p, K), C order
        Configuration k's ``gamma_j``, ``C_j`` and ``sigma_j`` in column k, so that a lane reads
        one contiguous row for coordinate j.
    W0 : ndarray of shape (K, p)
        The starting points.
    sparse, dense : True or None
        The lane a call needs, from :func:`storage_variant`: one is True, the other None.
    logistic, squared, other : True or None
        The loss's markers, from :func:`~privcd.kernels.dispatch.loss_variant`.

    Returns
    -------
    W : ndarray of shape (K, p)
        The last iterates.
    snapshots : ndarray of shape (K, len(checkpoints), p)
    """
    n = y.shape[0]
    K, p = W0.shape
    W = np.ascontiguousarray(W0.T)  # (p, K), like the parameters
    Z = np.empty((n, K)) if is_sparse else np.empty((K, n))  # residuals X w_k: columns sparse, rows dense
    for k in range(K):
        z = matvec_columns(is_sparse, Xf, data, indices, indptr, W0[k], n)
        copy_values(z, Z[:, k] if is_sparse else Z[k])  # a loop: an array assignment compiles its shape check
    lag_deltas = np.zeros(K)
    n_checkpoints = checkpoints.shape[0]
    snapshots = np.empty((K, n_checkpoints, p))
    coordinates = np.empty(BLOCK_ITERATIONS, dtype=np.int64)
    normals = np.empty(BLOCK_ITERATIONS)
    permutation = np.empty(p, dtype=np.int64)
    lanes = (K + LANE - 1) // LANE
    width = (K + lanes - 1) // lanes  # the configurations split evenly
    lag_j = 0
    first = 0  # the first checkpoint not yet recorded
    for start in range(0, n_iterations, BLOCK_ITERATIONS):
        block = min(BLOCK_ITERATIONS, n_iterations - start)
        draw_block(rng, p, coordinates, normals, block, start, order, permutation)
        last = first  # the checkpoints recorded in this block: first .. last - 1
        while last < n_checkpoints and checkpoints[last] < start + block:
            last += 1
        # the None marker removes the other storage's loop before numba inlines and parallelises it
        if sparse is not None:
            for lane in prange(lanes):
                begin, end = min(K, lane * width), min(K, (lane + 1) * width)
                _sparse_lane(data, indices, indptr, y, loss_code, penalty_code, lam, step_sizes, thresholds,
                             noise_std, coordinates, normals, start, block, checkpoints, first, last, lag_j, begin,
                             end, W, Z, lag_deltas, snapshots, logistic, squared, other)
        if dense is not None:
            for lane in prange(lanes):
                begin, end = min(K, lane * width), min(K, (lane + 1) * width)
                _dense_lane(Xf, data, indices, indptr, y, loss_code, penalty_code, lam, step_sizes, thresholds,
                            noise_std, coordinates, normals, start, block, checkpoints, first, last, lag_j, begin,
                            end, W, Z, lag_deltas, snapshots, logistic, squared, other)
        lag_j = coordinates[block - 1]
        first = last
    _record(checkpoints, first, n_checkpoints, n_iterations, 0, K, W, snapshots)  # those at the end
    return np.ascontiguousarray(W.T), snapshots


def storage_variant(is_sparse):
    """``(sparse, dense)`` for :func:`dp_cd_many` (and :func:`privcd.kernels.dp_sgd_many.dp_sgd_many`):
    True for the lane a call needs, None for the other.

    numba prunes a branch on an argument's None-ness before it inlines and parallelises the
    branch (as :func:`privcd.kernels.dp_cd.step_variant`), so each storage's ``prange`` compiles
    apart: a dense call's first compile in an empty numba cache took 89 s with both lanes in its
    parallel loop, most of it numba's parfor passes over the two lanes' inlined steps.
    """
    return (True, None) if is_sparse else (None, True)


@njit(inline="always")
def _record(checkpoints, first, last, iteration, begin, end, W, snapshots):
    """Configurations ``begin .. end - 1`` record their iterate at the checkpoints equal to ``iteration``."""
    for c in range(first, last):
        if checkpoints[c] == iteration:
            for k in range(begin, end):
                copy_values(W[:, k], snapshots[k, c])


@njit(inline="always")
def _dense_lane(Xf, data, indices, indptr, y, loss_code, penalty_code, lam, step_sizes, thresholds, noise_std,
                coordinates, normals, start, block, checkpoints, first, last, lag_j, begin, end, W, Z, lag_deltas,
                snapshots, logistic, squared, other):
    """The ``block`` iterations from ``start`` of configurations ``begin .. end - 1`` of
    :func:`dp_cd_many` on dense X, one configuration after the other (a step is a pass over its
    residuals ``Z[k]``, which stay in cache for the block), with :func:`coordinate_update`; the
    iterates at the checkpoints ``first .. last - 1`` recorded before their iteration."""
    work = scratch(Xf.shape[0])
    for k in range(begin, end):
        z = Z[k]
        previous, lag_delta = lag_j, lag_deltas[k]
        for t in range(block):
            _record(checkpoints, first, last, start + t, k, k + 1, W, snapshots)
            j = coordinates[t]
            old = W[j, k]
            W[j, k] = coordinate_update(False, False, Xf, data, indices, indptr, y, loss_code, penalty_code, lam,
                                        step_sizes[j, k], thresholds[j, k], noise_std[j, k], j, normals[t], old, z,
                                        previous, lag_delta, work, logistic, squared, other)
            previous, lag_delta = j, W[j, k] - old
        lag_deltas[k] = lag_delta


@njit(inline="always")
def _sparse_lane(data, indices, indptr, y, loss_code, penalty_code, lam, step_sizes, thresholds, noise_std,
                 coordinates, normals, start, block, checkpoints, first, last, lag_j, begin, end, W, Z, lag_deltas,
                 snapshots, logistic_lane, squared_lane, other_lane):
    """As :func:`_dense_lane` on sparse X, iteration by iteration, with a literal loss code (the loss's
    lane alone, :func:`~privcd.kernels.dispatch.loss_variant`)."""
    if logistic_lane is not None:
        _sparse_lane_steps(data, indices, indptr, y, logistic.CODE, penalty_code, lam, step_sizes, thresholds,
                           noise_std, coordinates, normals, start, block, checkpoints, first, last, lag_j, begin,
                           end, W, Z, lag_deltas, snapshots)
    if squared_lane is not None:
        _sparse_lane_steps(data, indices, indptr, y, squared.CODE, penalty_code, lam, step_sizes, thresholds,
                           noise_std, coordinates, normals, start, block, checkpoints, first, last, lag_j, begin,
                           end, W, Z, lag_deltas, snapshots)
    if other_lane is not None:
        _sparse_lane_steps(data, indices, indptr, y, loss_code, penalty_code, lam, step_sizes, thresholds,
                           noise_std, coordinates, normals, start, block, checkpoints, first, last, lag_j, begin,
                           end, W, Z, lag_deltas, snapshots)


@njit(inline="always")
def _sparse_lane_steps(data, indices, indptr, y, loss_code, penalty_code, lam, step_sizes, thresholds, noise_std,
                       coordinates, normals, start, block, checkpoints, first, last, lag_j, begin, end, W, Z,
                       lag_deltas, snapshots):
    """The loops of :func:`_sparse_lane`: for each stored entry of the lagged column and of column j,
    one loop over the lane's configurations, which reads contiguous rows of ``Z``, the parameters
    and ``W`` and vectorises (a column holds a few entries: one configuration's step alone is a
    latency-bound chain). Each configuration's arithmetic is :func:`coordinate_update`'s on sparse
    X: the lagged update ``z_i += lag_delta x_i,lag_j`` (adding an exact zero when the last step
    did not move, which changes no bit), the clipped terms into the partial sums of their rows
    modulo 32, combined by the same tree and added to the total where the rows cross into a later
    block, the same update."""
    n = y.shape[0]
    size = block_rows(n)
    totals = np.empty(end - begin)
    block_total = np.empty(end - begin)
    partials = np.empty((PARTIALS, end - begin))
    lags = lag_deltas[begin:end]
    for t in range(block):
        _record(checkpoints, first, last, start + t, begin, end, W, snapshots)
        prefetch_column(data, indices, indptr, coordinates, t, block)
        ahead = coordinates[min(t + DISTANCE, block - 1)]
        for line in range(begin, end, LINE_DOUBLES):
            prefetch(step_sizes[ahead], line)
            prefetch(thresholds[ahead], line)
            prefetch(noise_std[ahead], line)
            prefetch(W[ahead], line)
        j = coordinates[t]
        for e in range(indptr[lag_j], indptr[lag_j + 1]):
            z, x = Z[indices[e], begin:end], data[e]
            for k in range(z.shape[0]):
                z[k] += lags[k] * x
        for k in range(end - begin):  # loops, not array expressions, which numba's parfor passes would process
            totals[k] = 0.0
            for r in range(PARTIALS):
                partials[r, k] = 0.0
        block_end = size
        thresholds_j = thresholds[j, begin:end]
        for e in range(indptr[j], indptr[j + 1]):
            if indices[e] >= block_end:
                _add_block_totals(partials, block_total, totals)
                block_end = (indices[e] // size + 1) * size
            z, x, y_i, partial = Z[indices[e], begin:end], data[e], y[indices[e]], partials[indices[e] & (PARTIALS - 1)]
            for k in range(z.shape[0]):
                partial[k] += clipped_entry(loss_code, z[k], y_i, x, thresholds_j[k])
        _add_block_totals(partials, block_total, totals)
        w, step_sizes_j, noise_std_j = W[j, begin:end], step_sizes[j, begin:end], noise_std[j, begin:end]
        normal = normals[t]
        for k in range(w.shape[0]):
            old = w[k]
            w[k] = noisy_proximal_update(penalty_code, lam, old, step_sizes_j[k], totals[k] / n, noise_std_j[k], normal)
            lags[k] = w[k] - old
        lag_j = j


@njit(inline="always")
def _add_block_totals(partials, block_total, totals):
    """``totals += T_b`` for every configuration, ``T_b`` the combined columns of ``partials``
    (:mod:`privcd.kernels.partial_sums`), then ``partials = 0`` for the next block."""
    combine_columns(partials, block_total)
    for k in range(totals.shape[0]):
        totals[k] += block_total[k]
        for r in range(PARTIALS):
            partials[r, k] = 0.0
