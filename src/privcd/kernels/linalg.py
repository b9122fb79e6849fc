"""Column and row primitives on X, dense or sparse, shared by every kernel.

Dense X comes as a Fortran-ordered array for column access (``Xf``) or C-ordered for row access
(``Xc``); sparse X as the (``data``, ``indices``, ``indptr``) triplet of a CSC (columns) or CSR
(rows) matrix with sorted indices. The unused representation is passed as an empty array and
``is_sparse`` selects the branch. Sums run over stored entries in increasing index order, or for
the clipped coordinate gradient in the fixed order of :mod:`privcd.kernels.partial_sums`, and a
dense zero adds an exact zero, so dense and sparse X give bit-identical results.
"""
import math

import numpy as np
from numba import njit, prange

from privcd.kernels.dispatch import loss_derivative
from privcd.kernels.partial_sums import (PARTIALS, block_count, block_ring, block_rows, block_span, block_totals,
                                         combine, ring_total, start_partials, start_ring)
from privcd.losses import logistic, squared


@njit(cache=True)
def clip_scalar(value, threshold):
    """``value`` clipped to ``[-threshold, threshold]`` (``threshold`` may be ``inf``)."""
    if value > threshold:
        return threshold
    if value < -threshold:
        return -threshold
    return value


@njit(cache=True)
def clipped_coordinate_gradient_sum(is_sparse, Xf, data, indices, indptr, j, z, y, loss_code, threshold, work):
    """``sum_i clip(l'(z_i, y_i) X_ij, threshold)``: n times the clipped j-th gradient entry (dp-cd 5.1),
    summed in the order of :mod:`privcd.kernels.partial_sums` (``work``: its ``scratch(n)``)."""
    if loss_code == logistic.CODE:  # constant markers: each call compiles its loss's loop alone
        return lagged_clipped_gradient_sum(is_sparse, Xf, data, indices, indptr, j, 0.0, j, z, y, loss_code,
                                           threshold, work, True, None, None)
    if loss_code == squared.CODE:
        return lagged_clipped_gradient_sum(is_sparse, Xf, data, indices, indptr, j, 0.0, j, z, y, loss_code,
                                           threshold, work, None, True, None)
    return lagged_clipped_gradient_sum(is_sparse, Xf, data, indices, indptr, j, 0.0, j, z, y, loss_code,
                                       threshold, work, None, None, True)


@njit(cache=True, inline="always")
def lagged_clipped_gradient_sum(is_sparse, Xf, data, indices, indptr, lag_j, lag_delta, j, z, y, loss_code,
                                threshold, work, logistic_lane, squared_lane, other_lane):
    """Catch ``z`` up with a lagged coordinate step, ``z += lag_delta * X[:, lag_j]``, then return
    :func:`clipped_coordinate_gradient_sum` at the updated ``z``.

    A coordinate method's step ``w_j += delta`` changes ``z = Xw`` by ``delta * X[:, j]``; deferring
    that update to the next step's gradient lets dense X do both in one pass over ``z`` (one load and
    one store of ``z_i`` instead of two loads and a store). ``z_i + lag_delta * X_i,lag_j`` is rounded
    as by :func:`add_scaled_column` (no fused multiply-add), so ``z`` has the same bits as without the
    lag, dense or sparse. ``lag_delta = 0`` updates nothing. Inlined into numba callers (no array
    reference counting on a call). The loops take a literal loss code: a runtime code keeps the
    derivative an out-of-line call, which stops vectorisation on dense X and slows sparse X
    (benchmarks/README.md). ``logistic_lane, squared_lane, other_lane``: the loss's markers from
    :func:`~privcd.kernels.dispatch.loss_variant`, one True and two None, so that only the loop
    of the call's loss compiles (NaN if all three are None).
    """
    if not is_sparse:
        if logistic_lane is not None:
            return _dense_lagged_sum(Xf, lag_j, lag_delta, j, z, y, logistic.CODE, threshold, work)
        if squared_lane is not None:
            return _dense_lagged_sum(Xf, lag_j, lag_delta, j, z, y, squared.CODE, threshold, work)
        if other_lane is not None:
            return _dense_lagged_sum(Xf, lag_j, lag_delta, j, z, y, loss_code, threshold, work)
        return math.nan
    if lag_delta != 0.0:  # add_scaled_column's sparse loop, written here: as a call, or inlined by
        for k in range(indptr[lag_j], indptr[lag_j + 1]):  # numba, it left reference counts in DP-CD's step
            z[indices[k]] += lag_delta * data[k]
    if logistic_lane is not None:
        return _sparse_clipped_sum(data, indices, indptr, j, z, y, logistic.CODE, threshold, work)
    if squared_lane is not None:
        return _sparse_clipped_sum(data, indices, indptr, j, z, y, squared.CODE, threshold, work)
    if other_lane is not None:
        return _sparse_clipped_sum(data, indices, indptr, j, z, y, loss_code, threshold, work)
    return math.nan


@njit(inline="always")
def _sparse_clipped_sum(data, indices, indptr, j, z, y, loss_code, threshold, partials):
    """``sum_i clip(l'(z_i, y_i) X_ij, threshold)`` over the stored entries of column j, each term
    added to the partial sum of its row modulo 32, the partial sums combined and added to the total
    where the rows cross into a later block (:mod:`privcd.kernels.partial_sums`)."""
    size = block_rows(y.shape[0])
    block_end = size
    total = 0.0
    start_partials(partials)
    for k in range(indptr[j], indptr[j + 1]):
        i = indices[k]
        if i >= block_end:
            total += combine(partials)
            start_partials(partials)
            block_end = (i // size + 1) * size
        partials[i & (PARTIALS - 1)] += clipped_entry(loss_code, z[i], y[i], data[k], threshold)
    return total + combine(partials)


@njit(inline="always")
def clipped_entry(loss_code, z_i, y_i, x_ij, threshold):
    """``clip(l'(z_i, y_i) x_ij, threshold)``, a sparse column entry's term of the clipped sum."""
    return clip_scalar(loss_derivative(loss_code, z_i, y_i) * x_ij, threshold)


@njit(inline="always")
def _dense_lagged_sum(Xf, lag_j, lag_delta, j, z, y, loss_code, threshold, work):
    """Dense branch of :func:`lagged_clipped_gradient_sum`: the block totals
    (:func:`_dense_block_total`) added in block order (:mod:`privcd.kernels.partial_sums`)."""
    n = Xf.shape[0]
    total = 0.0
    for b in range(block_count(n)):
        first, stop = block_span(n, b)
        total += _dense_block_total(Xf, lag_j, lag_delta, j, z, y, loss_code, threshold, block_ring(work, n, b),
                                    first, stop)
    return total


@njit(inline="always")
def _dense_block_total(Xf, lag_j, lag_delta, j, z, y, loss_code, threshold, ring, first, stop):
    """The lagged update and the total ``T_b`` of the clipped terms of rows ``first .. stop - 1``,
    added into the ring of :mod:`privcd.kernels.partial_sums`, one SIMD loop with a literal loss
    code (LLVM does not hoist a runtime loss dispatch out of the loop, which then stays scalar). Two
    loops, with and without the lag, because a conditional store in the loop would stop
    vectorisation. The rows are unsigned (``np.uint64``): a signed index offset by ``first`` gets
    numba's negative-index wraparound, which kept the loop scalar (benchmarks/README.md)."""
    start_ring(ring)
    base = np.uint64(first)
    if lag_delta == 0.0:
        for k in range(np.uint64(stop - first)):
            i = base + k
            ring[k + PARTIALS] = ring[k] + _clipped_term(loss_code, z[i], y[i], Xf[i, j], threshold)
    else:
        for k in range(np.uint64(stop - first)):
            i = base + k
            z_i = z[i] + lag_delta * Xf[i, lag_j]
            z[i] = z_i
            ring[k + PARTIALS] = ring[k] + _clipped_term(loss_code, z_i, y[i], Xf[i, j], threshold)
    return ring_total(ring, stop - first)


@njit(cache=True, parallel=True)
def threaded_lagged_clipped_gradient_sum(Xf, lag_j, lag_delta, j, z, y, loss_code, threshold, work):
    """:func:`lagged_clipped_gradient_sum` on dense X with its row blocks shared among numba's
    threads by a ``prange``: the same block totals, added in the same order, so the same bits
    whatever the number of threads. For X of at least
    :data:`~privcd.kernels.partial_sums.BLOCKED_FROM` rows (one block otherwise).

    A kernel compiled without ``parallel=True`` that calls this one must run in a process whose
    threading layer has started (``numba.get_num_threads()``), as for
    :func:`~privcd.kernels.gaussian.fill_standard_normal_parallel`."""
    n = Xf.shape[0]
    blocks = block_count(n)
    totals = block_totals(work, n)
    if loss_code == logistic.CODE:  # literal loss codes, as in lagged_clipped_gradient_sum
        for b in prange(blocks):
            first, stop = block_span(n, b)
            totals[b] = _dense_block_total(Xf, lag_j, lag_delta, j, z, y, logistic.CODE, threshold,
                                           block_ring(work, n, b), first, stop)
    elif loss_code == squared.CODE:
        for b in prange(blocks):
            first, stop = block_span(n, b)
            totals[b] = _dense_block_total(Xf, lag_j, lag_delta, j, z, y, squared.CODE, threshold,
                                           block_ring(work, n, b), first, stop)
    else:
        for b in prange(blocks):
            first, stop = block_span(n, b)
            totals[b] = _dense_block_total(Xf, lag_j, lag_delta, j, z, y, loss_code, threshold,
                                           block_ring(work, n, b), first, stop)
    total = 0.0
    for b in range(blocks):
        total += totals[b]
    return total


@njit(cache=True)
def _clipped_term(loss_code, z_i, y_i, x_ij, threshold):
    """``clip(l'(z_i, y_i) x_ij, threshold)`` by comparisons (selects, not branches, and exact for an
    infinite threshold, unlike ``min``/``max``)."""
    g = loss_derivative(loss_code, z_i, y_i) * x_ij
    g = g if g < threshold else threshold
    return g if g > -threshold else -threshold


@njit(cache=True)
def add_scaled_column(is_sparse, Xf, data, indices, indptr, j, scale, z):
    """``z += scale * X[:, j]`` in place."""
    if is_sparse:
        for k in range(indptr[j], indptr[j + 1]):
            z[indices[k]] += scale * data[k]
    else:
        for i in range(Xf.shape[0]):
            z[i] += scale * Xf[i, j]


@njit(cache=True)
def matvec_columns(is_sparse, Xf, data, indices, indptr, w, n):
    """``X w`` from the column layout."""
    z = np.empty(n)
    residuals_into(is_sparse, Xf, data, indices, indptr, w, z)
    return z


@njit(cache=True)
def residuals_into(is_sparse, Xf, data, indices, indptr, w, z):
    """``z = X w`` in place, from the column layout."""
    z[:] = 0.0
    for j in range(w.shape[0]):
        if w[j] != 0.0:
            add_scaled_column(is_sparse, Xf, data, indices, indptr, j, w[j], z)


@njit(cache=True)
def row_dot(is_sparse, Xc, data, indices, indptr, i, w):
    """``<x_i, w>`` from the row layout."""
    total = 0.0
    if is_sparse:
        for k in range(indptr[i], indptr[i + 1]):
            total += data[k] * w[indices[k]]
    else:
        for j in range(Xc.shape[1]):
            total += Xc[i, j] * w[j]
    return total


@njit(cache=True)
def add_scaled_row(is_sparse, Xc, data, indices, indptr, i, scale, out):
    """``out += scale * x_i`` in place."""
    if is_sparse:
        for k in range(indptr[i], indptr[i + 1]):
            out[indices[k]] += scale * data[k]
    else:
        for j in range(Xc.shape[1]):
            out[j] += scale * Xc[i, j]
