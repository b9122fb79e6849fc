"""DP-SGD's release kernel: the batch's clipped gradient sum on a grid, plus exact discrete Gaussians.

The step of :func:`privcd.kernels.dp_sgd.dp_sgd` with its noise replaced: the summed clipped
gradients ``G`` of a batch drawn without replacement (:func:`~privcd.kernels.dp_sgd.draw_batch`,
the same sampling) are released as the integers ``rint(G_j / h) + Z_j``, ``Z_j`` exact discrete
Gaussians of ``s`` grid units (:func:`~privcd.kernels.discrete_noise.discrete_gaussian`), and the
step is ``w <- prox_{gamma psi}(w - (gamma / b) h (rint(G / h) + Z))``. No floating-point number
enters the noise, so the output is private as IEEE floats; the accounting is
:mod:`privcd.privacy.grid_sum`.
"""
import numpy as np
from numba import njit

from privcd.kernels.copy_values import copy_values
from privcd.kernels.discrete_noise import discrete_gaussian
from privcd.kernels.dispatch import penalty_prox
from privcd.kernels.dp_sgd import SAMPLE_WITHOUT_REPLACEMENT, add_clipped_gradients, draw_batch


@njit(cache=True)
def dp_sgd_on_grid(is_sparse, Xc, data, indices, indptr, y, row_norms, loss_code, penalty_code, lam, step, clip,
                   spacing, sigma_units, batch_size, n_iterations, checkpoints, sampling_key, rng, w0):
    """Run ``n_iterations`` DP-SGD release steps from ``w0`` (module docstring).

    Parameters as :func:`privcd.kernels.dp_sgd.dp_sgd`, without replacement, with
    ``spacing`` the grid spacing ``h = 2 C / K``, ``sigma_units`` the discrete Gaussian's ``s``
    and ``rng`` the ``numpy.random.Generator`` its integers come from; the batches come from the
    stream ``sampling_key`` as in an experiment. Returns ``(w, snapshots)``.
    """
    n = y.shape[0]
    p = w0.shape[0]
    w = w0.copy()
    gradient = np.zeros(p)
    order = np.arange(n)
    batch = np.empty(batch_size, dtype=np.int64)
    snapshots = np.empty((checkpoints.shape[0], p))
    scale = step / batch_size
    sample_position = np.int64(0)
    c = 0
    for it in range(n_iterations):
        while c < checkpoints.shape[0] and checkpoints[c] == it:
            copy_values(w, snapshots[c])
            c += 1
        count, sample_position = draw_batch(SAMPLE_WITHOUT_REPLACEMENT, batch_size, 0.0, order, batch, sampling_key,
                                            sample_position)
        gradient[:] = 0.0
        if is_sparse:
            add_clipped_gradients(True, Xc, data, indices, indptr, y, row_norms, loss_code, clip, batch, 0, count, w,
                                  gradient)
        else:
            add_clipped_gradients(False, Xc, data, indices, indptr, y, row_norms, loss_code, clip, batch, 0, count, w,
                                  gradient)
        for j in range(p):
            released = spacing * (np.rint(gradient[j] / spacing) + discrete_gaussian(rng, sigma_units))
            w[j] = penalty_prox(penalty_code, w[j] - scale * released, step, lam)
    while c < checkpoints.shape[0]:
        copy_values(w, snapshots[c])
        c += 1
    return w, snapshots
