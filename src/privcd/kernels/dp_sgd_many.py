"""DP-SGD in lockstep: K configurations that share their random draws (the batches and normals of
:mod:`privcd.kernels.dp_sgd`, which depend on the stream keys, never on w, the step, the clip or
the noise scale) take each step one after the other, row k bit for bit the solo
:func:`privcd.kernels.dp_sgd.dp_sgd` of configuration k (:func:`privcd.fit_many`).

Outside the support of its batch's records a step moves w_j by its noise alone,
``w_j <- prox(w_j - scale (0 + sigma xi_j))``; :func:`dp_sgd_many_sparse` uses this to stream a wide
sparse X's iterates from memory once per block of steps instead of once per step.
"""
import numpy as np
from numba import njit, prange

from privcd.kernels.copy_values import copy_values
from privcd.kernels.dp_sgd import (batch_buffers, block_steps, draw_batches, draw_noise, dp_sgd_step,
                                   log_keep_probability, noise_buffers, noisy_proximal_step, record_remaining)
from privcd.penalties import l1, l2

LANE = 32  # configurations that take a step one after the other (dp_sgd_many)
SPARSE_BLOCK_STEPS = 16  # steps one sweep over the iterates covers on sparse X (dp_sgd_many_sparse)
SPARSE_NOISE_BYTES = 2**25  # and at most this much of their normals (fewer steps on a very wide X)
TILE = 2048  # coordinates the sweep moves at a time for every configuration of a lane (16 KiB of w)


@njit(cache=True, inline="always")
def lane_steps(is_sparse, Xc, data, indices, indptr, y, row_norms, loss_code, penalty_code, lam, steps, scales, clips,
               noise_stds, batches, capacity, counts, noise, start, block, checkpoints, first, last, begin, end, W,
               gradients, snapshots):
    """The ``block`` steps from step ``start`` of configurations ``begin .. end - 1`` of
    :func:`dp_sgd_many`, step by step and configuration by configuration within a step, so that
    the configurations' dependency chains (dot product, derivative, update) overlap in the core
    (one configuration after the other for the whole block was 2-3x slower a step); the iterates
    at the checkpoints ``first .. last - 1`` of the block recorded before their step."""
    for s in range(block):
        for c in range(first, last):
            if checkpoints[c] == start + s:
                for k in range(begin, end):
                    copy_values(W[k], snapshots[k, c])
        for k in range(begin, end):
            dp_sgd_step(is_sparse, Xc, data, indices, indptr, y, row_norms, loss_code, penalty_code, lam, steps[k],
                        scales[k], clips[k], noise_stds[k], batches, s * capacity, counts[s], noise, s, W[k],
                        gradients[k])


@njit(cache=True, parallel=True)
def dp_sgd_many(is_sparse, Xc, data, indices, indptr, y, row_norms, loss_code, penalty_code, lam, steps,
                clips, noise_stds, batch_size, sampling, n_iterations, checkpoints, sampling_key, noise_key, W0,
                sparse, dense):
    """Run K configurations of DP-SGD that share their random draws, in lockstep: row k is
    ``dp_sgd(..., steps[k], clips[k], noise_stds[k], ..., W0[k])``, bit for bit.

    The batches and the standard normals depend only on the two stream keys, the batch size, the
    sampling and the step count (module docstring), never on w, the step size, the clipping norm
    or the noise scale: configurations that differ only in those draw them once here, a block of
    steps at a time, and then every configuration takes the block's steps (a ``prange`` over lanes
    of :data:`LANE` configurations, :func:`lane_steps`; each configuration's arithmetic is that
    of the solo kernel, so the result does not depend on the number of threads). The block's
    records are read once into cache for all K (a configuration-step costs about a third of a solo
    step, benchmarks/README.md).

    Parameters as :func:`dp_sgd`, with ``steps``, ``clips`` and ``noise_stds`` arrays of shape (K,)
    and ``W0`` of shape (K, p). Returns ``W`` of shape (K, p) and ``snapshots`` of shape
    (K, len(checkpoints), p). Sparse X goes to :func:`dp_sgd_many_sparse`. ``sparse, dense``: the
    storage's markers from :func:`~privcd.kernels.dp_cd_many.storage_variant` (one True, the other
    None), so that a call compiles its storage's steps alone (a dense call's first compile spent 58
    of its 78 s compiling :func:`dp_sgd_many_sparse`).
    """
    if sparse is not None:
        return dp_sgd_many_sparse(Xc, data, indices, indptr, y, row_norms, loss_code, penalty_code, lam, steps,
                                  clips, noise_stds, batch_size, sampling, n_iterations, checkpoints, sampling_key,
                                  noise_key, W0)
    if dense is not None:
        n = y.shape[0]
        K, p = W0.shape
        W = W0.copy()
        gradients = np.zeros((K, p))
        block_size = block_steps(p)
        noise, cosines, sines = noise_buffers(block_size, p)
        order, capacity, batches, counts = batch_buffers(sampling, batch_size, n, block_size)
        n_checkpoints = checkpoints.shape[0]
        snapshots = np.empty((K, n_checkpoints, p))
        log_keep = log_keep_probability(batch_size, n)
        scales = steps / batch_size
        sample_position = np.int64(0)  # not a literal: numba would also compile the draws for Literal[int](0)
        noise_position = np.int64(0)
        first = 0  # the first checkpoint not yet recorded
        for start in range(0, n_iterations, block_size):
            block = min(block_size, n_iterations - start)
            noise_position = draw_noise(noise_key, noise_position, noise[:block], cosines, sines)
            sample_position = draw_batches(sampling, batch_size, log_keep, order, batches, capacity, counts, block,
                                           sampling_key, sample_position)
            last = first  # the checkpoints recorded in this block: first .. last - 1
            while last < n_checkpoints and checkpoints[last] < start + block:
                last += 1
            for lane in prange((K + LANE - 1) // LANE):
                begin, end = lane * LANE, min(K, (lane + 1) * LANE)
                lane_steps(False, Xc, data, indices, indptr, y, row_norms, loss_code, penalty_code, lam, steps,
                           scales, clips, noise_stds, batches, capacity, counts, noise, start, block, checkpoints,
                           first, last, begin, end, W, gradients, snapshots)
            first = last
        record_remaining(first, W, snapshots)
        return W, snapshots
    raise ValueError("dp_sgd_many: one of the storage markers sparse, dense must be True")


@njit(cache=True)
def sparse_block_steps(p):
    """Steps :func:`dp_sgd_many_sparse` takes per sweep: :data:`SPARSE_BLOCK_STEPS`, fewer if their
    normals would pass :data:`SPARSE_NOISE_BYTES`."""
    return max(1, min(SPARSE_BLOCK_STEPS, SPARSE_NOISE_BYTES // (8 * p)))


@njit(cache=True, parallel=True)
def dp_sgd_many_sparse(Xc, data, indices, indptr, y, row_norms, loss_code, penalty_code, lam, steps, clips,
                       noise_stds, batch_size, sampling, n_iterations, checkpoints, sampling_key, noise_key, W0):
    """:func:`dp_sgd_many` on sparse X (CSR ``data``, ``indices``, ``indptr``): the same bits, with
    each configuration's iterate read from memory once per block of steps, not once per step.

    A block (at most :func:`sparse_block_steps` steps, ending at the next checkpoint) draws its
    batches and normals, then splits every step ``w <- prox(w - scale (G + sigma xi))`` in two:

    1. the coordinates S in the support of the block's records, gathered into a compact copy of
       each configuration's iterate (and ``indices`` mapped into S): every configuration takes the
       block's steps there through :func:`lane_steps`, exactly as :func:`dp_sgd` would on S;
    2. all p coordinates take the block's steps with G = 0 (:func:`noise_only_steps`), which is
       what a step does outside the support of its batch; the compact copies then overwrite S.

    Each coordinate sees the operations of :func:`dp_sgd` in the same order, so the bits are the
    same. On wide sparse X this is several times faster than the configurations alone, and
    faster than stepping every configuration over all p (benchmarks/README.md).
    """
    n = y.shape[0]
    K, p = W0.shape
    W = W0.copy()
    block_size = sparse_block_steps(p)
    noise, cosines, sines = noise_buffers(block_size, p)
    order, capacity, batches, counts = batch_buffers(sampling, batch_size, n, block_size)
    in_support = np.full(p, -1, dtype=np.int64)  # coordinate j's place in S, -1 outside it
    support = np.empty(p, dtype=np.int64)  # S, in order of first appearance
    local_indices = np.empty_like(indices)  # indices mapped into S (for the block's records)
    zeros = np.zeros(TILE)
    n_checkpoints = checkpoints.shape[0]
    snapshots = np.empty((K, n_checkpoints, p))
    log_keep = log_keep_probability(batch_size, n)
    scales = steps / batch_size
    sample_position = np.int64(0)  # not a literal: numba would also compile the draws for Literal[int](0)
    noise_position = np.int64(0)
    c = 0  # the first checkpoint not yet recorded
    start = 0
    while start < n_iterations:
        while c < n_checkpoints and checkpoints[c] == start:
            for k in range(K):
                copy_values(W[k], snapshots[k, c])
            c += 1
        block = min(block_size, n_iterations - start)
        if c < n_checkpoints:
            block = min(block, checkpoints[c] - start)
        noise_position = draw_noise(noise_key, noise_position, noise[:block], cosines, sines)
        sample_position = draw_batches(sampling, batch_size, log_keep, order, batches, capacity, counts, block,
                                       sampling_key, sample_position)
        size = 0
        for s in range(block):
            for b in range(counts[s]):
                i = batches[s * capacity + b]
                for e in range(indptr[i], indptr[i + 1]):
                    j = indices[e]
                    if in_support[j] < 0:
                        in_support[j] = size
                        support[size] = j
                        size += 1
                    local_indices[e] = in_support[j]
        support_noise = np.empty((block, size))
        for s in range(block):
            for q in range(size):
                support_noise[s, q] = noise[s, support[q]]
        for lane in prange((K + LANE - 1) // LANE):
            begin, end = lane * LANE, min(K, (lane + 1) * LANE)
            compact = np.empty((end - begin, size))
            for k in range(begin, end):
                for q in range(size):
                    compact[k - begin, q] = W[k, support[q]]
            lane_steps(True, Xc, data, local_indices, indptr, y, row_norms, loss_code, penalty_code, lam,
                       steps[begin:end], scales[begin:end], clips[begin:end], noise_stds[begin:end], batches,
                       capacity, counts, support_noise, start, block, checkpoints, 0, 0, 0, end - begin, compact,
                       np.zeros((end - begin, size)), snapshots)
            noise_only_steps(penalty_code, lam, steps, scales, noise_stds, noise, block, begin, end, W, zeros)
            for k in range(begin, end):
                for q in range(size):
                    W[k, support[q]] = compact[k - begin, q]
        for q in range(size):
            in_support[support[q]] = -1
        start += block
    record_remaining(c, W, snapshots)
    return W, snapshots


@njit(cache=True, inline="always")
def noise_only_steps(penalty_code, lam, steps, scales, noise_stds, noise, block, begin, end, W, zeros):
    """Configurations ``begin .. end - 1`` take the steps ``s < block`` with a zero gradient on every
    coordinate, ``w_j <- prox(w_j - scale (0 + sigma noise[s, j]))``, :data:`TILE` coordinates at
    a time (each tile of the block's normals is read from memory once for the lane, and each tile
    of w once for the block). Inlined and called with a literal penalty code, so that the
    proximal step vectorises."""
    if penalty_code == l1.CODE:
        tiled_noise_steps(l1.CODE, lam, steps, scales, noise_stds, noise, block, begin, end, W, zeros)
    elif penalty_code == l2.CODE:
        tiled_noise_steps(l2.CODE, lam, steps, scales, noise_stds, noise, block, begin, end, W, zeros)
    else:
        tiled_noise_steps(penalty_code, lam, steps, scales, noise_stds, noise, block, begin, end, W, zeros)


@njit(cache=True, inline="always")
def tiled_noise_steps(penalty_code, lam, steps, scales, noise_stds, noise, block, begin, end, W, zeros):
    """The loops of :func:`noise_only_steps`."""
    p = W.shape[1]
    for tile in range(0, p, TILE):
        stop = min(p, tile + TILE)
        for k in range(begin, end):
            for s in range(block):
                noisy_proximal_step(penalty_code, lam, steps[k], scales[k], noise_stds[k], zeros[:stop - tile],
                                    noise[s, tile:stop], W[k, tile:stop])
