"""DP-SCD kernel: dual stochastic coordinate descent with mini-batches and Gaussian noise.

dp-scd Algorithm 1 (independent updates, ``sequential=False``) and Algorithm 3 (SEQDP-SCD,
``sequential=True``) on the dual (dp-scd eq. (3)) of

    F(theta) = (1/N) sum_i l(<x_i, theta>, y_i) + (lam / 2) ||theta||^2,

with dual variables ``alpha`` (one per record) and the shared vector ``v = X^T alpha`` (one per
feature), ``theta = v / (lam N)``. Each iteration draws a mini-batch B of L distinct records
uniformly at random, computes for every j in B the update ``zeta_j`` that minimises the
subproblem of dp-scd eq. (7) (multiplied by N),

    phi_j(zeta) = l*(-(alpha_j + zeta), y_j) + z_j zeta + (q_j / 2) zeta^2,
    z_j = <x_j, v> / (lam N),   q_j = s ||x_j||^2 / (lam N),

scales it to ``|zeta_j| <= C`` (Algorithm 1 line 8), and adds ``zeta_j`` to ``alpha_j`` and
``zeta_j x_j`` to ``v``; then adds ``N(0, std^2)`` to every entry of ``v`` and to ``alpha_j``,
for j in B (lines 13-14, ``hidden_batch=False``) or for every record (``hidden_batch=True``,
which hides B in the state ``[alpha; v]``: :mod:`privcd.algorithms.dp_scd`).

Every record's noise, lazily. With ``hidden_batch`` a record's dual variable takes a normal at
every step, but it is read only when the record is in a batch. So the kernel keeps, per record,
how many steps' noise ``alpha_j`` holds, and before a batch's updates adds to each member the sum
of the noise it missed, ``std sqrt(k) N(0, 1)`` for ``k`` missed steps (the same law as ``k``
normals of ``std``); after the last batch every record catches up. The states the kernel reads
and the output theta have the same joint law as when every coordinate takes its normal at every
step, at O(L) normals a step instead of O(N). ``s`` is the CoCoA+ subproblem parameter sigma' (dp-scd Section 3 with
[17]): ``s = L`` makes the L independent updates of Algorithm 1 safe to add up; the sequential
variant updates ``alpha`` and ``v`` after every record, so each record sees the previous ones
(plain SDCA, ``s = 1``).

A mini-batch costs O(L nnz(row)) for the updates and O(L + p) for the noise. Row dot products are
SIMD sums for dense X (:func:`privcd.kernels.rows.fast_row_dot`), so dense and sparse X agree to
rounding.
Every iteration draws, from the run's counter-based stream (:mod:`privcd.kernels.streams`, key from
:func:`privcd.algorithms.base.kernel_key`, consumed in order from position 0), its batch (a partial
Fisher-Yates shuffle, :func:`privcd.kernels.dp_sgd.draw_batch`), with ``hidden_batch`` L normals
for the members' missed noise, then L + p standard normals in one vectorised fill (``alpha_B`` in
batch order, then ``v``) whatever the noise scale, so runs with the same seed visit the same
records; with ``hidden_batch``, N normals for the final catch-up. From 16,384 normals on (p of dorothea), numba's threads share
the fill (:func:`~privcd.kernels.gaussian.fill_standard_normal_parallel`, the same bits). Batches
are drawn afresh at every iteration (Algorithm 1 line 5), so the initial shuffle of line 1 changes
nothing and is not done.
"""
import math

import numpy as np
from numba import njit

from privcd.kernels.copy_values import copy_values
from privcd.kernels.dp_sgd import SAMPLE_WITHOUT_REPLACEMENT, draw_batch
from privcd.kernels.gaussian import PIECE_PAIRS, fill_standard_normal, fill_standard_normal_parallel
from privcd.kernels.linalg import add_scaled_row, clip_scalar
from privcd.kernels.rows import fast_row_dot
from privcd.losses import hinge, logistic, squared


@njit(cache=True)
def dual_coordinate_update(loss_code, alpha_j, y_j, z_j, q_j, box):
    """The update ``zeta`` of ``alpha_j`` minimising ``phi_j`` (module docstring), unscaled.

    With ``t = y_j (alpha_j + zeta)`` (the conjugates of the classification losses live on
    ``t`` in [0, 1]):

    squared, ``l = (z - y)^2``, ``l*(u) = u^2 / 4 + u y``: closed form
        ``zeta = (2 (y_j - z_j) - alpha_j) / (1 + 2 q_j)``.
    hinge, ``l*(-a) = -a y`` on ``a y`` in [0, 1]: closed form, the unconstrained minimiser
        ``t = y_j alpha_j + (1 - y_j z_j) / q_j`` clipped to [0, 1] (``q_j = 0``, a zero row:
        t = 1 where ``y_j z_j < 1``, 0 where ``y_j z_j > 1``, unchanged where it equals 1).
    logistic, ``l*(-a) = t log t + (1 - t) log(1 - t)``: one Newton step on ``phi_j`` in ``t``
        from ``t0``, the point of the box [box, 1 - box] nearest to ``y_j alpha_j``, and the
        result clipped to that box (dp-scd Section 3: one Newton step; the box keeps the
        logarithms finite, dp-scd "Data-dependent constraints").

    For the classification losses ``zeta = y_j t - alpha_j``: the step lands ``alpha_j + zeta``
    in the conjugate's domain even when noise has pushed ``alpha_j`` out of it (eq. (7) is
    infinite outside). The caller scales the result to ``[-C, C]``. NaN for an unknown loss code.
    """
    if loss_code == squared.CODE:
        return (2.0 * (y_j - z_j) - alpha_j) / (1.0 + 2.0 * q_j)
    t_old = y_j * alpha_j
    if loss_code == hinge.CODE:
        margin = 1.0 - y_j * z_j
        if q_j > 0.0:
            t = t_old + margin / q_j
        elif margin > 0.0:
            t = 1.0
        elif margin < 0.0:
            t = 0.0
        else:
            t = t_old
        return y_j * min(1.0, max(0.0, t)) - alpha_j
    if loss_code == logistic.CODE:
        t0 = min(1.0 - box, max(box, t_old))
        slope = math.log(t0) - math.log1p(-t0) + y_j * z_j + q_j * (t0 - t_old)
        curvature = 1.0 / (t0 * (1.0 - t0)) + q_j
        t = min(1.0 - box, max(box, t0 - slope / curvature))
        return y_j * t - alpha_j
    return math.nan


@njit(cache=True)
def projected_dual(loss_code, alpha_j, y_j, box):
    """``alpha_j`` projected onto the conjugate's domain: ``y_j t`` with ``t = y_j alpha_j`` clipped
    to [0, 1] (hinge) or [box, 1 - box] (logistic); ``alpha_j`` itself for the squared loss, whose
    conjugate is finite everywhere. The authors' ``_enforce_alpha`` (dp-scd code,
    ``standaloneSVM.py`` and ``standaloneLR.py``)."""
    if loss_code == hinge.CODE:
        return y_j * min(1.0, max(0.0, y_j * alpha_j))
    if loss_code == logistic.CODE:
        return y_j * min(1.0 - box, max(box, y_j * alpha_j))
    return alpha_j


@njit(cache=True)
def scaled_update(is_sparse, Xc, data, indices, indptr, y, row_sq_norms, loss_code, lam_n,
                  subproblem_scale, clip, box, from_projected, j, alpha_j, v):
    """``zeta_j`` for record j against the shared vector ``v``, scaled to ``[-clip, clip]``.

    ``zeta_j / max(1, |zeta_j| / C)`` of Algorithm 1 line 8 is the clipping of a scalar. With
    ``from_projected`` the subproblem is solved from :func:`projected_dual` of ``alpha_j`` (the
    authors' code), so ``alpha_j + zeta_j`` keeps the noise ``alpha_j`` carries; without it, from
    ``alpha_j`` itself, so the update lands ``alpha_j + zeta_j`` in the domain (privcd's default).
    """
    z_j = fast_row_dot(is_sparse, Xc, data, indices, indptr, j, v) / lam_n
    q_j = subproblem_scale * row_sq_norms[j] / lam_n
    start = projected_dual(loss_code, alpha_j, y[j], box) if from_projected else alpha_j
    zeta = dual_coordinate_update(loss_code, start, y[j], z_j, q_j, box)
    return clip_scalar(zeta, clip)


@njit(cache=True)
def batch_update(is_sparse, Xc, data, indices, indptr, y, row_sq_norms, loss_code, lam_n,
                 subproblem_scale, clip, box, from_projected, sequential, batch, count, alpha, v, zetas):
    """The noiseless part of one iteration on the records ``batch[:count]``, in place.

    Independent (Algorithm 1 lines 6-11): every ``zeta_j`` is computed from the same ``alpha``
    and ``v``, then all are applied. Sequential (Algorithm 3 lines 5-10): each is applied before
    the next is computed. ``zetas[:count]`` receives the updates.
    """
    for b in range(count):
        j = batch[b]
        zeta = scaled_update(is_sparse, Xc, data, indices, indptr, y, row_sq_norms, loss_code,
                             lam_n, subproblem_scale, clip, box, from_projected, j, alpha[j], v)
        zetas[b] = zeta
        if sequential:
            alpha[j] += zeta
            if zeta != 0.0:
                add_scaled_row(is_sparse, Xc, data, indices, indptr, j, zeta, v)
    if not sequential:
        for b in range(count):
            j = batch[b]
            alpha[j] += zetas[b]
            if zetas[b] != 0.0:
                add_scaled_row(is_sparse, Xc, data, indices, indptr, j, zetas[b], v)


@njit(cache=True)
def dp_scd(is_sparse, Xc, data, indices, indptr, n_features, y, row_sq_norms, loss_code, lam, clip,
           noise_std, batch_size, subproblem_scale, sequential, box, from_projected, hidden_batch, n_iterations,
           checkpoints, key):
    """Run DP-SCD (or SEQDP-SCD) for ``n_iterations`` mini-batches from ``alpha = 0, v = 0``.

    Parameters
    ----------
    is_sparse, Xc, data, indices, indptr : row layout of X (:func:`privcd.kernels.layout.row_arrays`)
    n_features : int
        p.
    y : ndarray of shape (N,)
    row_sq_norms : ndarray of shape (N,)
        ``||x_i||^2``.
    loss_code : int
        squared, logistic or hinge.
    lam : float
        ``lam > 0`` of the L2 penalty ``(lam / 2) ||theta||^2``.
    clip : float
        C, the bound on ``|zeta_j|`` (``inf``: no scaling).
    noise_std : float
        Standard deviation of the noise added to ``alpha_B`` (every ``alpha`` with ``hidden_batch``)
        and to ``v`` after every mini-batch.
    batch_size : int
        L, records per mini-batch, drawn uniformly without replacement, independently every
        iteration.
    subproblem_scale : float
        sigma' of the subproblem (L for Algorithm 1, 1 for Algorithm 3).
    sequential : bool
        Algorithm 3's sequential updates instead of Algorithm 1's independent ones.
    box : float
        The logistic Newton step keeps ``y_j alpha_j`` in [box, 1 - box].
    from_projected : bool
        Solve each record's subproblem from its dual variable projected onto the conjugate's
        domain (:func:`scaled_update`).
    hidden_batch : bool
        Noise on every dual coordinate at every step (lazily, module docstring) instead of on the
        batch's only.
    n_iterations : int
        T, the number of mini-batches.
    checkpoints : int64 ndarray, increasing
        Iteration counts at which to record ``theta = v / (lam N)`` (0 = before the first batch).
    key : uint64
        The run's stream key (:func:`privcd.algorithms.base.kernel_key`); draws start at position 0.

    Returns
    -------
    theta : ndarray of shape (p,)
        ``v / (lam N)`` (Algorithm 1 line 16).
    snapshots : ndarray of shape (len(checkpoints), p)
        theta at each checkpoint.
    alpha : ndarray of shape (N,)
    v : ndarray of shape (p,)
    """
    n = y.shape[0]
    lam_n = lam * n
    alpha = np.zeros(n)
    v = np.zeros(n_features)
    order = np.arange(n)
    batch = np.empty(batch_size, dtype=np.int64)
    zetas = np.empty(batch_size)
    noise = np.empty(batch_size + n_features)
    missed = np.empty(batch_size)
    noised = np.zeros(n, dtype=np.int64)  # hidden_batch: the steps whose noise alpha_j holds
    snapshots = np.empty((checkpoints.shape[0], n_features))
    position = 0
    c = 0
    for it in range(n_iterations):
        while c < checkpoints.shape[0] and checkpoints[c] == it:
            copy_values(v / lam_n, snapshots[c])
            c += 1
        count, position = draw_batch(SAMPLE_WITHOUT_REPLACEMENT, batch_size, 0.0, order, batch, key,
                                     position)
        if hidden_batch:
            position = fill_standard_normal(key, position, missed)
            for b in range(count):
                j = batch[b]
                alpha[j] += noise_std * math.sqrt(it - noised[j]) * missed[b]
                noised[j] = it + 1
        # A constant storage flag lets LLVM inline the per-record calls (a runtime flag leaves
        # calls with reference counting that cost about 30x the O(p) work of a record).
        if is_sparse:
            batch_update(True, Xc, data, indices, indptr, y, row_sq_norms, loss_code, lam_n,
                         subproblem_scale, clip, box, from_projected, sequential, batch, count, alpha, v, zetas)
        else:
            batch_update(False, Xc, data, indices, indptr, y, row_sq_norms, loss_code, lam_n,
                         subproblem_scale, clip, box, from_projected, sequential, batch, count, alpha, v, zetas)
        if noise.shape[0] >= 4 * PIECE_PAIRS:  # two pieces or more: all threads, the same bits
            position = fill_standard_normal_parallel(key, position, noise.reshape((1, noise.shape[0])))
        else:
            position = fill_standard_normal(key, position, noise)
        for b in range(count):
            alpha[batch[b]] += noise_std * noise[b]
        for k in range(n_features):
            v[k] += noise_std * noise[count + k]
    if hidden_batch:
        final = np.empty(n)
        position = fill_standard_normal(key, position, final)
        for j in range(n):
            alpha[j] += noise_std * math.sqrt(n_iterations - noised[j]) * final[j]
    theta = v / lam_n
    while c < checkpoints.shape[0]:
        copy_values(theta, snapshots[c])
        c += 1
    return theta, snapshots, alpha, v
