"""DP-CD kernel: dp-cd Algorithm 1 (random proximal coordinate descent with Gaussian noise).

Each iteration picks j uniformly in [p], releases the clipped coordinate gradient
``g_j = (1/n) sum_i clip(l'(<w, x_i>, y_i) X_ij, C_j)`` plus ``N(0, sigma_j^2)`` and takes the
proximal step ``w_j <- prox_{gamma_j psi_j}(w_j - gamma_j (g_j + eta_j))`` (dp-cd eq. (3), Alg. 1
line 7). The residuals ``z = Xw`` are kept up to date, one step behind: each step's change of
``z`` is applied during the next step's gradient pass (:func:`~privcd.kernels.linalg.lagged_clipped_gradient_sum`),
so a step costs one pass over ``z`` and two columns of X dense, O(nnz of both columns) sparse.
With ``inner > 0`` the iterates are averaged every ``inner`` steps (Alg. 1 line 9).

Every iteration draws one coordinate (``rng.integers(0, p)``) then one standard normal from the
run's ``numpy.random.Generator``, whatever the noise scale, so runs with the same seed visit the
same coordinates.
"""
import numpy as np
from numba import njit

from privcd.kernels.averaging import close_epoch, credit_change
from privcd.kernels.dispatch import penalty_prox
from privcd.kernels.draws import bounded_integer
from privcd.kernels.linalg import lagged_clipped_gradient_sum, matvec_columns


@njit(inline="always")
def coordinate_step(is_sparse, Xf, data, indices, indptr, y, loss_code, penalty_code, lam,
                    step_sizes, thresholds, noise_std, j, normal_draw, w, z, lag_j, lag_delta):
    """One noisy proximal coordinate step on coordinate j, updating ``w`` in place.

    On entry ``z + lag_delta * X[:, lag_j] = Xw``: the previous step's change of ``z`` is applied
    first, in the gradient's pass over ``z``. On return ``z`` lags behind the new ``w`` by
    ``(w_j - old) X[:, j]``, the next step's lag.

    Returns the old value of ``w_j`` and ``w_j - old`` (0.0 if the step did not move).

    Inlined into :func:`dp_cd` by numba, with :func:`~privcd.kernels.linalg.lagged_clipped_gradient_sum`:
    a compiled call increfs and decrefs each array argument (atomics), about 100 ns a call with the
    dozen arrays here, so a dense step's only call is the three-array SIMD sum. :func:`dp_cd` is
    the only copy of this step (DP-SkGD's uniform sketch runs it), so its bits are DP-CD's.
    """
    n = y.shape[0]
    gradient = lagged_clipped_gradient_sum(is_sparse, Xf, data, indices, indptr, lag_j, lag_delta, j, z, y,
                                           loss_code, thresholds[j]) / n
    old = w[j]
    gamma = step_sizes[j]
    new = penalty_prox(penalty_code, old - gamma * (gradient + noise_std[j] * normal_draw), gamma, lam)
    w[j] = new
    return old, new - old


@njit(cache=True)
def dp_cd(is_sparse, Xf, data, indices, indptr, y, loss_code, penalty_code, lam, step_sizes,
          thresholds, noise_std, n_iterations, inner, checkpoints, rng, w0):
    """Run DP-CD for ``n_iterations`` coordinate steps from ``w0``.

    Parameters
    ----------
    step_sizes, thresholds, noise_std : ndarray of shape (p,)
        ``gamma_j``, clipping thresholds ``C_j`` and noise standard deviations ``sigma_j``.
    inner : int
        ``K`` of Algorithm 1 (average every K steps); 0 returns the last iterate, no averaging.
    checkpoints : int64 ndarray, increasing
        Iteration counts at which to record the current output (0 = before the first step).
    rng : numpy.random.Generator
        The run's generator (:func:`privcd.algorithms.base.kernel_rng`); advanced in place.

    Returns
    -------
    w_out : ndarray of shape (p,)
        The last iterate (``inner == 0``) or the last average ``w_bar_T``.
    snapshots : ndarray of shape (len(checkpoints), p)
        The output at each checkpoint.
    """
    n = y.shape[0]
    p = w0.shape[0]
    w = w0.copy()
    z = matvec_columns(is_sparse, Xf, data, indices, indptr, w, n)
    out = w0.copy()
    snapshots = np.empty((checkpoints.shape[0], p))
    averaging = inner > 0
    total = np.zeros(p)
    held_since = np.zeros(p, dtype=np.int64)
    lag_j = 0
    lag_delta = 0.0
    c = 0
    for it in range(n_iterations):
        while c < checkpoints.shape[0] and checkpoints[c] == it:
            snapshots[c] = out if averaging else w
            c += 1
        j = bounded_integer(rng, 0, p)
        normal_draw = rng.standard_normal()
        k = it % inner if averaging else 0
        old, lag_delta = coordinate_step(is_sparse, Xf, data, indices, indptr, y, loss_code, penalty_code, lam,
                                         step_sizes, thresholds, noise_std, j, normal_draw, w, z, lag_j,
                                         lag_delta)
        lag_j = j
        if averaging:
            credit_change(total, held_since, j, old, k)
            if k == inner - 1:
                close_epoch(total, held_since, w, out, inner)
                z = matvec_columns(is_sparse, Xf, data, indices, indptr, w, n)
                lag_delta = 0.0
    while c < checkpoints.shape[0]:
        snapshots[c] = out if averaging else w
        c += 1
    if not averaging:
        out[:] = w
    return out, snapshots
