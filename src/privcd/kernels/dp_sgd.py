"""DP-SGD kernel: clipped, sampled, proximal stochastic gradient descent with Gaussian noise.

Abadi et al. (2016) as used in dp-cd Section 6 / Appendix G.1 and dp-gcd Section 5: each step
samples a batch B, sums the per-sample gradients clipped to L2 norm C,
``G = sum_{i in B} clip(l'(<w, x_i>, y_i) x_i, C)``, adds ``N(0, sigma^2 I_p)`` and takes the
proximal step ``w <- prox_{gamma psi}(w - gamma (G + noise) / b)`` with b the (expected) batch size.

Sampling is exactly the one the privacy event describes:
``SAMPLE_WITHOUT_REPLACEMENT``: b distinct records uniformly at random (partial Fisher-Yates);
``SAMPLE_POISSON``: each record independently with probability b/n (geometric skips, O(b) a step).

Random stream: the run's counter-based stream (key from
:func:`privcd.algorithms.base.kernel_key`, :mod:`privcd.kernels.streams`), consumed in order from
position 0. Per step: the batch (without replacement: ``bounded_index`` below ``n - k`` for k < b;
Poisson: one uniform per geometric skip), then p standard normals in coordinate order
(:func:`privcd.kernels.gaussian.fill_standard_normal`, one vectorised loop).
"""
import math

import numpy as np
from numba import njit

from privcd.kernels.dispatch import loss_derivative, penalty_prox
from privcd.kernels.elementary import log_positive
from privcd.kernels.gaussian import fill_standard_normal
from privcd.kernels.linalg import add_scaled_row
from privcd.kernels.rows import fast_row_dot
from privcd.kernels.streams import bounded_index, uniform_fine

SAMPLE_WITHOUT_REPLACEMENT = 0
SAMPLE_POISSON = 1


@njit(cache=True)
def add_clipped_gradient(is_sparse, Xc, data, indices, indptr, y, row_norms, loss_code, clip, i, w,
                         gradient):
    """``gradient += clip(l'(<w, x_i>, y_i) x_i, clip)`` (clipping to L2 norm ``clip``)."""
    derivative = loss_derivative(loss_code, fast_row_dot(is_sparse, Xc, data, indices, indptr, i, w), y[i])
    norm = abs(derivative) * row_norms[i]
    scale = derivative
    if norm > clip:
        scale = derivative * (clip / norm)
    if scale != 0.0:
        add_scaled_row(is_sparse, Xc, data, indices, indptr, i, scale, gradient)


@njit(cache=True)
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


@njit(cache=True)
def dp_sgd(is_sparse, Xc, data, indices, indptr, y, row_norms, loss_code, penalty_code, lam, step,
           clip, noise_std, batch_size, sampling, n_iterations, checkpoints, key, w0):
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
    key : uint64
        The run's stream key (:func:`privcd.algorithms.base.kernel_key`); draws start at position 0.

    Returns
    -------
    w : ndarray of shape (p,)
    snapshots : ndarray of shape (len(checkpoints), p)
    """
    n = y.shape[0]
    p = w0.shape[0]
    w = w0.copy()
    gradient = np.zeros(p)
    noise = np.empty(p)
    order = np.arange(n)
    batch = np.empty(n if sampling == SAMPLE_POISSON else batch_size, dtype=np.int64)
    snapshots = np.empty((checkpoints.shape[0], p))
    log_keep = math.log1p(-batch_size / n) if batch_size < n else -math.inf
    position = 0
    c = 0
    for it in range(n_iterations):
        while c < checkpoints.shape[0] and checkpoints[c] == it:
            snapshots[c] = w
            c += 1
        gradient[:] = 0.0
        count, position = draw_batch(sampling, batch_size, log_keep, order, batch, key, position)
        for b in range(count):
            add_clipped_gradient(is_sparse, Xc, data, indices, indptr, y, row_norms, loss_code, clip,
                                 batch[b], w, gradient)
        position = fill_standard_normal(key, position, noise)
        scale = step / batch_size
        for j in range(p):
            w[j] = penalty_prox(penalty_code, w[j] - scale * (gradient[j] + noise_std * noise[j]), step, lam)
    while c < checkpoints.shape[0]:
        snapshots[c] = w
        c += 1
    return w, snapshots
