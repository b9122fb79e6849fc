"""DP-SCD's release kernel: the dual and shared vectors on grids, plus exact discrete Gaussians.

The step of :func:`privcd.kernels.dp_scd.dp_scd` (Algorithm 1, independent updates, noise on every
dual) with its state kept as integers, ``alpha = h_a A`` and ``v = h_v V``: a mini-batch B drawn as
in an experiment (:func:`~privcd.kernels.dp_sgd.draw_batch`), each member's update ``zeta_j``
computed from the released integers (:func:`~privcd.kernels.dp_scd.scaled_update`), then

    A_j <- A_j + rint(zeta_j / h_a)  (j in B),    V <- V + rint(G / h_v) + Z_v,

``G = sum_{j in B} zeta_j x_j`` summed in batch order into zeros, ``Z_v`` exact discrete Gaussians of
``s_v`` units. Every dual's noise is lazy: before a member's update, ``A_j`` takes one discrete
Gaussian of variance ``g s_a^2`` for the ``g`` steps since its last read
(:func:`~privcd.kernels.discrete_noise.discrete_gaussian_of_variance`). No floating-point number
enters the noise, so the output is private as IEEE floats; the accounting and the lazy sums'
argument are :mod:`privcd.privacy.grid_dual`. The last steps' dual noise is never drawn: the final
``alpha`` is not released.
"""
import numpy as np
from numba import njit

from privcd.kernels.copy_values import copy_values
from privcd.kernels.discrete_noise import discrete_gaussian, discrete_gaussian_of_variance
from privcd.kernels.dp_scd import scaled_update
from privcd.kernels.dp_sgd import SAMPLE_WITHOUT_REPLACEMENT, draw_batch
from privcd.kernels.linalg import add_scaled_row


@njit(cache=True)
def grid_batch_update(is_sparse, Xc, data, indices, indptr, y, row_sq_norms, loss_code, lam_n, subproblem_scale,
                      clip, box, from_projected, batch, count, duals, dual_spacing, v, batch_sum):
    """Algorithm 1 lines 6-11 on the grids: every ``zeta_j`` from the same released state, then the
    rounded duals' updates in place and ``batch_sum = sum_j zeta_j x_j`` (from zeros, in batch order)."""
    batch_sum[:] = 0.0
    for b in range(count):
        j = batch[b]
        zeta = scaled_update(is_sparse, Xc, data, indices, indptr, y, row_sq_norms, loss_code, lam_n,
                             subproblem_scale, clip, box, from_projected, j, dual_spacing * duals[j], v)
        if zeta != 0.0:
            add_scaled_row(is_sparse, Xc, data, indices, indptr, j, zeta, batch_sum)
        duals[j] += np.rint(zeta / dual_spacing)


@njit(cache=True)
def dp_scd_on_grid(is_sparse, Xc, data, indices, indptr, n_features, y, row_sq_norms, loss_code, lam, clip,
                   batch_size, subproblem_scale, box, from_projected, dual_spacing, dual_sigma, shared_spacing,
                   shared_sigma, n_iterations, checkpoints, sampling_key, rng):
    """Run ``n_iterations`` DP-SCD release steps from ``A = 0, V = 0`` (module docstring).

    Parameters as :func:`privcd.kernels.dp_scd.dp_scd` (independent updates, noise on every dual),
    with ``dual_spacing`` and ``shared_spacing`` the grids ``h_a`` and ``h_v``, ``dual_sigma`` and
    ``shared_sigma`` the discrete Gaussians' ``s_a`` and ``s_v``, ``sampling_key`` the stream of the
    batches and ``rng`` the ``numpy.random.Generator`` of the noise's integers.

    Returns ``(theta, snapshots)``, ``theta = h_v V / (lam N)``.
    """
    n = y.shape[0]
    lam_n = lam * n
    duals = np.zeros(n)  # A: integers, exact in float64
    shared = np.zeros(n_features)  # V
    v = np.zeros(n_features)  # h_v V
    batch_sum = np.zeros(n_features)
    order = np.arange(n)
    batch = np.empty(batch_size, dtype=np.int64)
    last_read = np.zeros(n, dtype=np.int64)  # the steps whose noise A_j holds
    dual_variance = dual_sigma * dual_sigma
    snapshots = np.empty((checkpoints.shape[0], n_features))
    position = np.int64(0)
    c = 0
    for it in range(n_iterations):
        while c < checkpoints.shape[0] and checkpoints[c] == it:
            copy_values(v / lam_n, snapshots[c])
            c += 1
        count, position = draw_batch(SAMPLE_WITHOUT_REPLACEMENT, batch_size, 0.0, order, batch, sampling_key,
                                     position)
        for b in range(count):
            j = batch[b]
            gap = it - last_read[j]
            if gap > 0:
                duals[j] += discrete_gaussian_of_variance(rng, gap * dual_variance)
                last_read[j] = it
        if is_sparse:
            grid_batch_update(True, Xc, data, indices, indptr, y, row_sq_norms, loss_code, lam_n, subproblem_scale,
                              clip, box, from_projected, batch, count, duals, dual_spacing, v, batch_sum)
        else:
            grid_batch_update(False, Xc, data, indices, indptr, y, row_sq_norms, loss_code, lam_n, subproblem_scale,
                              clip, box, from_projected, batch, count, duals, dual_spacing, v, batch_sum)
        for k in range(n_features):
            shared[k] += np.rint(batch_sum[k] / shared_spacing) + discrete_gaussian(rng, shared_sigma)
            v[k] = shared_spacing * shared[k]
    theta = v / lam_n
    while c < checkpoints.shape[0]:
        copy_values(theta, snapshots[c])
        c += 1
    return theta, snapshots
