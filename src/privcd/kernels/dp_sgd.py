"""DP-SGD kernel: clipped, sampled, proximal stochastic gradient descent with Gaussian noise.

Abadi et al. (2016) as used in dp-cd Section 6 / Appendix G.1 and dp-gcd Section 5: each step
samples a batch B, sums the per-sample gradients clipped to L2 norm C,
``G = sum_{i in B} clip(l'(<w, x_i>, y_i) x_i, C)``, adds ``N(0, sigma^2 I_p)`` and takes the
proximal step ``w <- prox_{gamma psi}(w - gamma (G + noise) / b)`` with b the (expected) batch size.

Sampling is exactly the one the privacy event describes:
``SAMPLE_WITHOUT_REPLACEMENT``: b distinct records uniformly at random (partial Fisher-Yates);
``SAMPLE_POISSON``: each record independently with probability b/n (geometric skips, O(b) a step).

Random streams (:mod:`privcd.kernels.streams`), both read from position 0: the batches from the
run's stream 0 (without replacement: ``bounded_index`` below ``n - k`` for k < b; Poisson: one
uniform per geometric skip), the noise from stream 1 (keys from
:func:`privcd.algorithms.base.kernel_key`), p standard normals a step in coordinate order, step t's
at position ``2 t ceil(p / 2)`` (:func:`privcd.kernels.gaussian.fill_standard_normal`). The noise
positions do not depend on the batches or on w, so the kernel draws the normals of a block of
steps (:func:`block_steps`) at once (:func:`draw_noise`, the same bits as a draw per step): for
narrow rows in one vectorised loop, for wide rows shared among numba's threads (both measured
faster, benchmarks/README.md; drawing the batches ahead too was not).

Runs that share their draws take their steps in lockstep in :mod:`privcd.kernels.dp_sgd_many`.
"""
import math

import numpy as np
from numba import njit

from privcd.kernels.copy_values import copy_values
from privcd.kernels.dispatch import loss_derivative, penalty_prox
from privcd.numerics.elementary import log_positive
from privcd.kernels.gaussian import fill_standard_normal_parallel, fill_standard_normal_rows
from privcd.kernels.linalg import add_scaled_row
from privcd.kernels.rows import fast_row_dot
from privcd.kernels.streams import bounded_index, uniform_fine
from privcd.losses import hinge, logistic, squared
from privcd.penalties import l1, l2

SAMPLE_WITHOUT_REPLACEMENT = 0
SAMPLE_POISSON = 1
BLOCK_PAIRS = 512  # normal pairs drawn at a time for narrow rows (in L1)
WIDE_BLOCK_PAIRS = 16384  # and for wide rows, by all threads (256 KiB)
WIDE_ROW_PAIRS = 128  # rows of at least this many pairs (p >= 255) are wide
MAX_BLOCK_STEPS = 64


@njit(cache=True, inline="always")
def clipped_derivative(loss_code, z, y_i, row_norm, clip):
    """The scale s of ``clip(l'(z, y_i) x_i, clip) = s x_i`` (clipping to L2 norm ``clip``), for
    ``z = <w, x_i>`` and ``row_norm = ||x_i||_2``."""
    derivative = loss_derivative(loss_code, z, y_i)
    norm = abs(derivative) * row_norm
    if norm > clip:
        return derivative * (clip / norm)
    return derivative


@njit(cache=True, inline="always")
def accumulate_clipped_gradients(is_sparse, Xc, data, indices, indptr, y, row_norms, loss_code, clip, batch, first,
                                 count, w, gradient):
    """``gradient += sum_{b < count} clip(l'(<w, x_i>, y_i) x_i, clip)`` over the records
    ``i = batch[first + b]``, for literal ``is_sparse`` and ``loss_code`` (:func:`add_clipped_gradients`)."""
    for b in range(first, first + count):
        i = batch[b]
        scale = clipped_derivative(loss_code, fast_row_dot(is_sparse, Xc, data, indices, indptr, i, w), y[i],
                                   row_norms[i], clip)
        add_scaled_row(is_sparse, Xc, data, indices, indptr, i, scale, gradient)


@njit(cache=True, inline="always")
def add_clipped_gradients(is_sparse, Xc, data, indices, indptr, y, row_norms, loss_code, clip, batch, first, count,
                          w, gradient):
    """``gradient += sum_{b < count} clip(l'(<w, x_i>, y_i) x_i, clip)`` over the records
    ``i = batch[first + b]``, in batch order.

    Inlined where called with a literal ``is_sparse``, and it calls the loop with a literal loss
    code: a runtime storage flag leaves the sparse scatter in the dense loop, and LLVM then reloads
    w and the gradient after every store (3-5x slower); a runtime loss code keeps the derivative a
    call and made a step several times slower (benchmarks/README.md).
    """
    if loss_code == logistic.CODE:
        accumulate_clipped_gradients(is_sparse, Xc, data, indices, indptr, y, row_norms, logistic.CODE, clip, batch,
                                     first, count, w, gradient)
    elif loss_code == squared.CODE:
        accumulate_clipped_gradients(is_sparse, Xc, data, indices, indptr, y, row_norms, squared.CODE, clip, batch,
                                     first, count, w, gradient)
    elif loss_code == hinge.CODE:
        accumulate_clipped_gradients(is_sparse, Xc, data, indices, indptr, y, row_norms, hinge.CODE, clip, batch,
                                     first, count, w, gradient)
    else:
        accumulate_clipped_gradients(is_sparse, Xc, data, indices, indptr, y, row_norms, loss_code, clip, batch,
                                     first, count, w, gradient)


@njit(cache=True, inline="always")
def clear_rows(indices, indptr, batch, first, count, gradient):
    """``gradient[j] = 0`` for the stored entries j of the records ``batch[first:first + count]``."""
    for b in range(first, first + count):
        i = batch[b]
        for e in range(indptr[i], indptr[i + 1]):
            gradient[indices[e]] = 0.0


@njit(cache=True, inline="always")
def noisy_proximal_step(penalty_code, lam, step, scale, noise_std, gradient, normals, w):
    """``w <- prox_{step psi}(w - scale (gradient + noise_std normals))``, coordinate by coordinate."""
    for j in range(w.shape[0]):
        w[j] = penalty_prox(penalty_code, w[j] - scale * (gradient[j] + noise_std * normals[j]), step, lam)


@njit(cache=True, inline="always")
def draw_batch(sampling, batch_size, log_keep, order, batch, key, position):
    """Fill ``batch`` with the records of one step: ``(how many there are, next stream position)``.

    Without replacement: ``batch_size`` distinct records, uniformly (a partial Fisher-Yates
    shuffle of ``order``, whose state carries over between calls; each swap partner is an exact
    uniform :func:`~privcd.kernels.streams.bounded_index`). Poisson: every record independently
    with probability ``q = batch_size / n``, visited by geometric skips
    ``floor(log(u) / log(1 - q))`` with u uniform on (0, 1] at 64-bit resolution
    (:func:`~privcd.kernels.streams.uniform_fine`; ``log_keep = log(1 - q)``, ``-inf``
    for q = 1); ``batch`` must have room for n records. Draws from stream ``key`` at ``position``.
    """
    n = order.shape[0]
    if sampling == SAMPLE_WITHOUT_REPLACEMENT:
        for b in range(batch_size):
            offset, position = bounded_index(key, position, n - b)
            k = b + offset
            i = order[k]
            order[k] = order[b]
            order[b] = i
            batch[b] = i
        return batch_size, position
    count = 0
    i = -1
    while True:
        i += 1 + int(math.floor(log_positive(uniform_fine(key, position)) / log_keep))
        position += 1
        if i >= n:
            return count, position
        batch[count] = i
        count += 1


@njit(cache=True, inline="always")
def dp_sgd_step(is_sparse, Xc, data, indices, indptr, y, row_norms, loss_code, penalty_code, lam, step, scale,
                clip, noise_std, batch, first, count, noise, s, w, gradient):
    """One step on ``w`` from the records ``batch[first:first + count]`` and the normals ``noise[s]``:
    ``w <- prox_{step psi}(w - scale (G + noise_std noise[s]))``, ``scale = step / b``.

    Inlined where called, so that each branch calls the step's pieces with literal storage and
    penalty codes: a runtime storage flag left the sparse scatter in the dense loop (3-5x
    slower), and a literal penalty code lets the soft thresholding vectorise. On sparse X the
    gradient buffer (all zero to start with) is cleared on the batch's rows only, after the step:
    on dorothea (p = 72,113) a full clear was a quarter of a step's memory traffic.
    """
    if is_sparse:  # the gradient is zero but on the batch's rows, and is left so (clear_rows)
        add_clipped_gradients(True, Xc, data, indices, indptr, y, row_norms, loss_code, clip, batch, first, count, w,
                              gradient)
    else:
        gradient[:] = 0.0
        add_clipped_gradients(False, Xc, data, indices, indptr, y, row_norms, loss_code, clip, batch, first, count,
                              w, gradient)
    if penalty_code == l1.CODE:
        noisy_proximal_step(l1.CODE, lam, step, scale, noise_std, gradient, noise[s], w)
    elif penalty_code == l2.CODE:
        noisy_proximal_step(l2.CODE, lam, step, scale, noise_std, gradient, noise[s], w)
    else:
        noisy_proximal_step(penalty_code, lam, step, scale, noise_std, gradient, noise[s], w)
    if is_sparse:
        clear_rows(indices, indptr, batch, first, count, gradient)


@njit(cache=True)
def wide_rows(p):
    """Whether rows of p normals are drawn by all threads: at least :data:`WIDE_ROW_PAIRS` pairs."""
    return (p + 1) // 2 >= WIDE_ROW_PAIRS


@njit(cache=True)
def block_steps(p):
    """Steps whose noise is drawn at a time: enough for :data:`BLOCK_PAIRS` normal pairs
    (:data:`WIDE_BLOCK_PAIRS` for wide rows), at most :data:`MAX_BLOCK_STEPS`."""
    pairs = WIDE_BLOCK_PAIRS if wide_rows(p) else BLOCK_PAIRS
    return min(MAX_BLOCK_STEPS, max(1, pairs // ((p + 1) // 2)))


@njit(cache=True)
def noise_buffers(block_size, p):
    """``(noise, cosines, sines)`` for :func:`draw_noise` with blocks of at most ``block_size`` steps
    (the scratch arrays only for narrow rows)."""
    scratch = 0 if wide_rows(p) else block_size * ((p + 1) // 2)
    return np.empty((block_size, p)), np.empty(scratch), np.empty(scratch)


@njit(cache=True)
def draw_noise(key, position, noise, cosines, sines):
    """Row s of ``noise`` (C order) for step s of a block: the next ``len(noise)`` steps' normals
    from stream ``key`` at ``position``; returns the next position. Narrow rows in one vectorised
    loop (:func:`~privcd.kernels.gaussian.fill_standard_normal_rows`), wide rows shared among
    numba's threads (:func:`~privcd.kernels.gaussian.fill_standard_normal_parallel`): the same
    bits as a draw per step either way."""
    if wide_rows(noise.shape[1]):
        return fill_standard_normal_parallel(key, position, noise)
    return fill_standard_normal_rows(key, position, noise, cosines, sines)


@njit(cache=True)
def batch_buffers(sampling, batch_size, n, block_size):
    """``(order, capacity, batches, counts)`` for :func:`draw_batches` with blocks of at most
    ``block_size`` steps: the Fisher-Yates state, the records a step can draw and the space for them."""
    capacity = n if sampling == SAMPLE_POISSON else batch_size
    return (np.arange(n), capacity, np.empty(block_size * capacity, dtype=np.int64),
            np.empty(block_size, dtype=np.int64))


@njit(cache=True, inline="always")
def draw_batches(sampling, batch_size, log_keep, order, batches, capacity, counts, block, key, position):
    """The batches of the next ``block`` steps (:func:`draw_batch`): step s's ``counts[s]`` records
    at ``batches[s * capacity:]``; returns the next position."""
    for s in range(block):
        counts[s], position = draw_batch(sampling, batch_size, log_keep, order,
                                         batches[s * capacity:(s + 1) * capacity], key, position)
    return position


@njit(cache=True, inline="always")
def record_remaining(first, W, snapshots):
    """Every configuration's iterate at the checkpoints from ``first`` on (those at the end of the run)."""
    for k in range(W.shape[0]):
        for c in range(first, snapshots.shape[1]):
            copy_values(W[k], snapshots[k, c])


@njit(cache=True)
def log_keep_probability(batch_size, n):
    """``log(1 - b / n)``, the geometric skips' denominator of Poisson sampling (``-inf`` for b = n)."""
    return math.log1p(-batch_size / n) if batch_size < n else -math.inf


@njit(cache=True)
def dp_sgd(is_sparse, Xc, data, indices, indptr, y, row_norms, loss_code, penalty_code, lam, step,
           clip, noise_std, batch_size, sampling, n_iterations, checkpoints, sampling_key, noise_key, w0):
    """Run DP-SGD for ``n_iterations`` steps from ``w0``.

    Parameters
    ----------
    row_norms : ndarray of shape (n,)
        ``||x_i||_2``, so that clipping costs nothing extra.
    step : float
        Constant step size ``gamma``.
    clip, noise_std : float
        Clipping norm C and standard deviation of the noise added to the summed batch gradient.
    batch_size : int
        b: the batch size (without replacement) or expected batch size (Poisson).
    sampling : int
        ``SAMPLE_WITHOUT_REPLACEMENT`` or ``SAMPLE_POISSON``.
    checkpoints : int64 ndarray, increasing
        Step counts at which to record the iterate (0 = before the first step).
    sampling_key, noise_key : uint64
        The run's two stream keys (:func:`privcd.algorithms.base.kernel_key` with streams 0 and 1);
        both are read from position 0 (module docstring).

    Returns
    -------
    w : ndarray of shape (p,)
    snapshots : ndarray of shape (len(checkpoints), p)
    """
    n = y.shape[0]
    p = w0.shape[0]
    w = w0.copy()
    gradient = np.zeros(p)
    order = np.arange(n)
    steps = block_steps(p)
    noise, cosines, sines = noise_buffers(steps, p)
    batch = np.empty(n if sampling == SAMPLE_POISSON else batch_size, dtype=np.int64)
    snapshots = np.empty((checkpoints.shape[0], p))
    log_keep = log_keep_probability(batch_size, n)
    scale = step / batch_size
    sample_position = np.int64(0)  # not a literal: numba would also compile the draws for Literal[int](0)
    noise_position = np.int64(0)
    c = 0
    for start in range(0, n_iterations, steps):
        block = min(steps, n_iterations - start)
        noise_position = draw_noise(noise_key, noise_position, noise[:block], cosines, sines)
        for s in range(block):
            while c < checkpoints.shape[0] and checkpoints[c] == start + s:
                copy_values(w, snapshots[c])
                c += 1
            count, sample_position = draw_batch(sampling, batch_size, log_keep, order, batch, sampling_key,
                                                sample_position)
            dp_sgd_step(is_sparse, Xc, data, indices, indptr, y, row_norms, loss_code, penalty_code, lam, step,
                        scale, clip, noise_std, batch, 0, count, noise, s, w, gradient)
    while c < checkpoints.shape[0]:
        copy_values(w, snapshots[c])
        c += 1
    return w, snapshots
