"""DP-SGD kernel: clipped, sampled, proximal stochastic gradient descent with Gaussian noise.

Abadi et al. (2016) as used in dp-cd Section 6 / Appendix G.1 and dp-gcd Section 5: each step
samples a batch B, sums the per-sample gradients clipped to L2 norm C,
``G = sum_{i in B} clip(l'(<w, x_i>, y_i) x_i, C)``, adds ``N(0, sigma^2 I_p)`` and takes the
proximal step ``w <- prox_{gamma psi}(w - gamma (G + noise) / b)`` with b the (expected) batch size.

Sampling is exactly the one the privacy event describes:
``SAMPLE_WITHOUT_REPLACEMENT``: b distinct records uniformly at random (partial Fisher-Yates);
``SAMPLE_POISSON``: each record independently with probability b/n (geometric skips, O(b) a step).

Random stream, per step, from the run's ``numpy.random.Generator``: the batch (without
replacement: ``rng.integers(k, n)`` for k < b; Poisson: one ``rng.random()`` per geometric skip),
then p standard normals in coordinate order.
"""
import math

import numpy as np
from numba import njit

from privcd.kernels.dispatch import loss_derivative, penalty_prox
from privcd.kernels.draws import bounded_integer
from privcd.kernels.linalg import add_scaled_row, row_dot

SAMPLE_WITHOUT_REPLACEMENT = 0
SAMPLE_POISSON = 1


@njit(cache=True)
def add_clipped_gradient(is_sparse, Xc, data, indices, indptr, y, row_norms, loss_code, clip, i, w,
                         gradient):
    """``gradient += clip(l'(<w, x_i>, y_i) x_i, clip)`` (clipping to L2 norm ``clip``)."""
    derivative = loss_derivative(loss_code, row_dot(is_sparse, Xc, data, indices, indptr, i, w), y[i])
    norm = abs(derivative) * row_norms[i]
    scale = derivative
    if norm > clip:
        scale = derivative * (clip / norm)
    if scale != 0.0:
        add_scaled_row(is_sparse, Xc, data, indices, indptr, i, scale, gradient)


@njit(cache=True)
def draw_batch(sampling, batch_size, log_keep, order, batch, rng):
    """Fill ``batch`` with the records of one step and return how many there are.

    Without replacement: ``batch_size`` distinct records, uniformly (a partial Fisher-Yates
    shuffle of ``order``, whose state carries over between calls). Poisson: every record
    independently with probability ``q = batch_size / n``, visited by geometric skips
    (``log_keep = log(1 - q)``); ``batch`` must have room for n records. Draws from ``rng``.
    """
    n = order.shape[0]
    if sampling == SAMPLE_WITHOUT_REPLACEMENT:
        for b in range(batch_size):
            k = bounded_integer(rng, b, n)
            i = order[k]
            order[k] = order[b]
            order[b] = i
            batch[b] = i
        return batch_size
    count = 0
    i = -1
    while True:
        i += 1 + int(math.floor(math.log(1.0 - rng.random()) / log_keep))
        if i >= n:
            return count
        batch[count] = i
        count += 1


@njit(cache=True)
def dp_sgd(is_sparse, Xc, data, indices, indptr, y, row_norms, loss_code, penalty_code, lam, step,
           clip, noise_std, batch_size, sampling, n_iterations, checkpoints, rng, w0):
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
    rng : numpy.random.Generator
        The run's generator (:func:`privcd.algorithms.base.kernel_rng`); advanced in place.

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
    batch = np.empty(n if sampling == SAMPLE_POISSON else batch_size, dtype=np.int64)
    snapshots = np.empty((checkpoints.shape[0], p))
    log_keep = math.log1p(-batch_size / n) if batch_size < n else -math.inf
    c = 0
    for it in range(n_iterations):
        while c < checkpoints.shape[0] and checkpoints[c] == it:
            snapshots[c] = w
            c += 1
        gradient[:] = 0.0
        for b in range(draw_batch(sampling, batch_size, log_keep, order, batch, rng)):
            add_clipped_gradient(is_sparse, Xc, data, indices, indptr, y, row_norms, loss_code, clip,
                                 batch[b], w, gradient)
        scale = step / batch_size
        for j in range(p):
            noisy = gradient[j] + noise_std * rng.standard_normal()
            w[j] = penalty_prox(penalty_code, w[j] - scale * noisy, step, lam)
    while c < checkpoints.shape[0]:
        snapshots[c] = w
        c += 1
    return w, snapshots
