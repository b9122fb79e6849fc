"""DP-CD kernel: dp-cd Algorithm 1 (random proximal coordinate descent with Gaussian noise).

Each iteration picks j uniformly in [p], releases the clipped coordinate gradient
``g_j = (1/n) sum_i clip(l'(<w, x_i>, y_i) X_ij, C_j)`` plus ``N(0, sigma_j^2)`` and takes the
proximal step ``w_j <- prox_{gamma_j psi_j}(w_j - gamma_j (g_j + eta_j))`` (dp-cd eq. (3), Alg. 1
line 7). The residuals ``z = Xw`` are kept up to date, one step behind: each step's change of
``z`` is applied during the next step's gradient pass (:func:`~privcd.kernels.linalg.lagged_clipped_gradient_sum`),
so a step costs one pass over ``z`` and two columns of X dense, O(nnz of both columns) sparse.
With ``inner > 0`` the iterates are averaged every ``inner`` steps (Alg. 1 line 9).

Every iteration takes one coordinate by the run's order (``order``, :func:`draw_block`) then draws
one standard normal from the run's ``numpy.random.Generator``, whatever the noise scale, so runs
with the same seed visit the same coordinates with the same normals, and
:func:`privcd.kernels.dp_cd_many.dp_cd_many` runs configurations that differ only in step sizes,
thresholds and noise scales in lockstep. Both kernels draw them a block of
:data:`BLOCK_ITERATIONS` iterations ahead (:func:`draw_block`, the same numbers in the same
order), so that on sparse X a step can request the columns of the steps after it
(:mod:`privcd.kernels.prefetch`); drawing one iteration at a time instead (which also stops the
prefetch) makes a pass about twice as long on sparse X (benchmarks/README.md, *Measurements behind the kernels' design*).
"""
import numpy as np
from numba import njit

from privcd.kernels.averaging import close_epoch, credit_change, record_final_output
from privcd.kernels.copy_values import copy_values
from privcd.kernels.discrete_noise import discrete_gaussian, noisy_value
from privcd.kernels.dispatch import penalty_prox
from privcd.kernels.draws import bounded_integer
from privcd.kernels.linalg import (lagged_clipped_gradient_sum, matvec_columns, residuals_into,
                                   threaded_lagged_clipped_gradient_sum)
from privcd.kernels.partial_sums import block_count, scratch
from privcd.kernels.prefetch import DISTANCE, prefetch, prefetch_column

BLOCK_ITERATIONS = 1024  # iterations whose coordinates and normals are drawn at a time
ORDER_UNIFORM = 0  # coordinates i.i.d. uniform on [p] (dp-cd Algorithm 1)
ORDER_PERMUTATION = 1  # a fresh uniformly random permutation of [p] every p iterations
ORDER_CYCLIC = 2  # 0, 1, ..., p - 1, 0, 1, ...


@njit(inline="always")
def coordinate_update(is_sparse, threaded, Xf, data, indices, indptr, y, loss_code, penalty_code, lam, gamma,
                      threshold, noise_std, j, normal_draw, old, z, lag_j, lag_delta, work, logistic_lane, squared_lane,
                      other_lane, discrete=False):
    """The new value of ``w_j = old`` after one noisy proximal coordinate step on coordinate j,
    with step size ``gamma``, clipping threshold ``threshold`` and the noise of :func:`noisy_proximal_update`
    (``discrete``: a release's grid noise).

    On entry ``z + lag_delta * X[:, lag_j] = Xw``: the previous step's change of ``z`` is applied
    first, in the gradient's pass over ``z``. On return ``z`` lags behind the new ``w`` by
    ``(new - old) X[:, j]``, the next step's lag. ``work``: the sum's work space
    (:func:`~privcd.kernels.partial_sums.scratch`). ``threaded`` (a literal; dense X only): sum the
    row blocks on numba's threads (:func:`~privcd.kernels.linalg.threaded_lagged_clipped_gradient_sum`,
    the same bits).

    Inlined into :func:`dp_cd` and :func:`privcd.kernels.dp_cd_many.dp_cd_many` by numba, with
    :func:`~privcd.kernels.linalg.lagged_clipped_gradient_sum`: a compiled call increfs and
    decrefs each array argument (atomics, for each of the dozen arrays here). Both
    kernels take their steps here, and the sum's order is fixed in the source
    (:mod:`privcd.kernels.partial_sums`), so a run has the same bits alone or in lockstep, from a
    fresh or a warm numba cache (and DP-SkGD's uniform sketch, which runs :func:`dp_cd`, has DP-CD's).
    """
    if threaded:
        total = threaded_lagged_clipped_gradient_sum(Xf, lag_j, lag_delta, j, z, y, loss_code, threshold, work)
    else:
        total = lagged_clipped_gradient_sum(is_sparse, Xf, data, indices, indptr, lag_j, lag_delta, j, z, y,
                                            loss_code, threshold, work, logistic_lane, squared_lane, other_lane)
    gradient = total / y.shape[0]
    return noisy_proximal_update(penalty_code, lam, old, gamma, gradient, noise_std, normal_draw, discrete)


@njit(inline="always")
def noisy_proximal_update(penalty_code, lam, old, gamma, gradient, noise_std, normal_draw, discrete=False):
    """``prox_{gamma psi_j}(old - gamma g~)`` (dp-cd eq. (3)), ``g~`` the released gradient entry
    (:func:`~privcd.kernels.discrete_noise.noisy_value`: ``gradient + noise_std normal_draw``, or
    on a release's grid of spacing ``noise_std``)."""
    return penalty_prox(penalty_code, old - gamma * noisy_value(gradient, noise_std, normal_draw, discrete),
                        gamma, lam)


@njit(inline="always")
def draw_block(rng, p, coordinates, normals, block, start, order, permutation, sigma_units=0):
    """The draws of iterations ``start .. start + block - 1``, in the kernel's order (module
    docstring): for each, the coordinate ``coordinates[t]``, then the standard normal ``normals[t]``
    (a release, ``sigma_units > 0``: the discrete Gaussian integer of that sigma,
    :func:`~privcd.kernels.discrete_noise.discrete_gaussian`).

    ``order`` :data:`ORDER_UNIFORM` draws the coordinate ``rng.integers(0, p)``;
    :data:`ORDER_PERMUTATION` reads it from ``permutation``, which iterations that are multiples of
    p first refill with a fresh uniformly random permutation of [p] (:func:`shuffle_range`);
    :data:`ORDER_CYCLIC` takes ``it mod p`` and draws nothing for it. Drawn a block ahead, so that
    a step on sparse X can request the columns of the steps after it
    (:mod:`privcd.kernels.prefetch`); the generator ends where drawing one at a time leaves it."""
    for t in range(block):
        if order == ORDER_UNIFORM:
            coordinates[t] = bounded_integer(rng, 0, p)
        else:
            position = (start + t) % p
            if order == ORDER_PERMUTATION and position == 0:
                shuffle_range(rng, permutation)
            coordinates[t] = permutation[position] if order == ORDER_PERMUTATION else position
        normals[t] = discrete_gaussian(rng, sigma_units) if sigma_units > 0 else rng.standard_normal()


@njit(inline="always")
def shuffle_range(rng, permutation):
    """Fill ``permutation`` with a uniformly random permutation of ``0 .. len - 1``: Fisher-Yates
    from the identity, swapping entry i with entry ``rng.integers(0, i + 1)`` for i from the last
    down to 1 (:func:`~privcd.kernels.draws.bounded_integer`)."""
    for i in range(permutation.shape[0]):
        permutation[i] = i
    for i in range(permutation.shape[0] - 1, 0, -1):
        k = bounded_integer(rng, 0, i + 1)
        permutation[i], permutation[k] = permutation[k], permutation[i]


@njit(inline="always")
def prefetch_parameters(step_sizes, thresholds, noise_std, w, coordinates, t, block):
    """Request the step size, threshold, noise scale and iterate entry of the coordinate
    :data:`~privcd.kernels.prefetch.DISTANCE` steps ahead (p-long arrays that a wide X keeps
    out of the first cache levels)."""
    j = coordinates[min(t + DISTANCE, block - 1)]
    prefetch(step_sizes, j)
    prefetch(thresholds, j)
    prefetch(noise_std, j)
    prefetch(w, j)


def step_variant(is_sparse, n_samples, threads):
    """``(sparse, threaded, plain)`` for :func:`dp_cd`: True for the steps a call needs, None for the others.

    Sparse X takes the sparse steps. Dense X with several row blocks
    (:func:`~privcd.kernels.partial_sums.block_rows`) and more than one of numba's threads sums each
    step's blocks on the threads (the same bits; on one thread the threaded sum is slower than the
    plain one: 20,640 x 8 logistic, 0.27 against 0.21 ms a pass); otherwise the plain steps.

    numba prunes a branch ``if marker is not None`` whose argument is None from its type, before
    it inlines the branch's steps (its dead-branch pruning precedes inlining; it cannot prune on a
    bool's value), so each variant compiles apart: a first fit on dense X compiles one third of
    the steps (DP-CD's first fit in an empty numba cache: 45 s with all three copies).
    """
    if is_sparse:
        return True, None, None
    if threads > 1 and block_count(n_samples) > 1:
        return None, True, None
    return None, None, True


@njit(cache=True)
def dp_cd(columns, y, objective, coordinate_parameters, n_iterations, inner, checkpoints, rng, w0, order,
          sigma_units, sparse, threaded, plain, logistic, squared, other):
    """Run DP-CD for ``n_iterations`` coordinate steps from ``w0``.

    Parameters
    ----------
    columns : tuple
        ``(is_sparse, Xf, data, indices, indptr)``, X for column access
        (:func:`privcd.kernels.layout.column_arrays`).
    objective : tuple
        ``(loss_code, penalty_code, lam)``: the loss and penalty codes (:mod:`privcd.kernels.dispatch`)
        and the penalty's strength.
    coordinate_parameters : tuple of three ndarrays of shape (p,)
        ``(step_sizes, thresholds, noise_std)``: ``gamma_j``, clipping thresholds ``C_j`` and noise
        standard deviations ``sigma_j``.
    inner : int
        ``K`` of Algorithm 1 (average every K steps); 0 returns the last iterate, no averaging.
    checkpoints : int64 ndarray, increasing
        Iteration counts at which to record the current output (0 = before the first step).
    rng : numpy.random.Generator
        The run's generator (:func:`privcd.algorithms.base.kernel_rng`); advanced in place.
    order : int
        The coordinate order, an ``ORDER_*`` code (:func:`draw_block`).
    sigma_units : int
        0: an experiment, ``noise_std`` the noise standard deviations. A release: ``noise_std``
        holds the grid spacings and each step adds a discrete Gaussian integer of standard
        deviation ``sigma_units`` in grid units (:func:`~privcd.kernels.discrete_noise.noisy_value`,
        :mod:`privcd.privacy.grid_gaussian`).
    sparse, threaded, plain : True or None
        The variant of the steps, from :func:`step_variant`: one is True, the others None.
    logistic, squared, other : True or None
        The loss's markers, from :func:`~privcd.kernels.dispatch.loss_variant`.

    Returns
    -------
    w_out : ndarray of shape (p,)
        The last iterate (``inner == 0``) or the last average ``w_bar_T``.
    snapshots : ndarray of shape (len(checkpoints), p)
        The output at each checkpoint.
    """
    is_sparse, Xf, data, indices, indptr = columns
    loss_code, penalty_code, lam = objective
    step_sizes, thresholds, noise_std = coordinate_parameters
    n = y.shape[0]
    p = w0.shape[0]
    w = w0.copy()
    z = matvec_columns(is_sparse, Xf, data, indices, indptr, w, n)
    work = scratch(n)
    out = w0.copy()
    snapshots = np.empty((checkpoints.shape[0], p))
    averaging = inner > 0
    total = np.zeros(p)
    held_since = np.zeros(p, dtype=np.int64)
    coordinates = np.empty(BLOCK_ITERATIONS, dtype=np.int64)
    normals = np.empty(BLOCK_ITERATIONS)
    permutation = np.empty(p, dtype=np.int64)
    lag_j = 0
    lag_delta = 0.0
    c = np.int64(0)  # not a literal: record_final_output would compile for Literal[int](0) too
    for start in range(0, n_iterations, BLOCK_ITERATIONS):
        block = min(BLOCK_ITERATIONS, n_iterations - start)
        draw_block(rng, p, coordinates, normals, block, start, order, permutation, sigma_units)
        discrete = sigma_units > 0
        # literal flags: each copy compiles without the other branches; the None markers remove
        # the copies a call does not need before numba inlines them (step_variant)
        if sparse is not None:
            c, lag_j, lag_delta = _solo_steps(True, False, columns, y, loss_code, penalty_code, lam,
                                              coordinate_parameters, inner, checkpoints,
                                              coordinates, normals, start, block, c, lag_j, lag_delta, w, z, out,
                                              total, held_since, snapshots, work, discrete, logistic, squared,
                                              other)
        if threaded is not None:
            c, lag_j, lag_delta = _solo_steps(False, True, columns, y, loss_code, penalty_code, lam,
                                              coordinate_parameters, inner, checkpoints,
                                              coordinates, normals, start, block, c, lag_j, lag_delta, w, z, out,
                                              total, held_since, snapshots, work, discrete, logistic, squared,
                                              other)
        if plain is not None:
            c, lag_j, lag_delta = _solo_steps(False, False, columns, y, loss_code, penalty_code, lam,
                                              coordinate_parameters, inner, checkpoints,
                                              coordinates, normals, start, block, c, lag_j, lag_delta, w, z, out,
                                              total, held_since, snapshots, work, discrete, logistic, squared,
                                              other)
    record_final_output(checkpoints, c, snapshots, w, out, averaging)
    return out, snapshots


@njit(inline="always")
def _solo_steps(is_sparse, threaded, columns, y, loss_code, penalty_code, lam, coordinate_parameters, inner,
                checkpoints, coordinates, normals, start, block, c, lag_j, lag_delta, w, z, out, total, held_since,
                snapshots, work, discrete, logistic, squared, other):
    """The ``block`` iterations of :func:`dp_cd` from iteration ``start`` with the drawn
    ``coordinates`` and ``normals``; returns the next checkpoint and the lag, ``(c, lag_j, lag_delta)``.

    Called with a literal ``is_sparse``: with a runtime flag, the loop kept numba's reference
    counts of the dozen arrays :func:`coordinate_update` takes (two atomic operations an array a
    step; benchmarks/README.md, *Measurements behind the kernels' design*). On sparse X each step
    requests the column and parameters :data:`~privcd.kernels.prefetch.DISTANCE` steps ahead; on
    dense X of several row blocks (literal ``threaded``), numba's threads share each step's sum. (X
    and the parameters come as :func:`dp_cd`'s tuples: CPython passes a call of more than 30
    arguments as ``*args``, which numba does not inline.)"""
    stored_sparse, Xf, data, indices, indptr = columns
    step_sizes, thresholds, noise_std = coordinate_parameters
    averaging = inner > 0
    for t in range(block):
        it = start + t
        while c < checkpoints.shape[0] and checkpoints[c] == it:
            copy_values(out if averaging else w, snapshots[c])
            c += 1
        if is_sparse:
            prefetch_column(data, indices, indptr, coordinates, t, block)
            prefetch_parameters(step_sizes, thresholds, noise_std, w, coordinates, t, block)
        j = coordinates[t]
        k = it % inner if averaging else 0
        old = w[j]
        w[j] = coordinate_update(is_sparse, threaded, Xf, data, indices, indptr, y, loss_code, penalty_code, lam,
                                 step_sizes[j], thresholds[j], noise_std[j], j, normals[t], old, z, lag_j, lag_delta,
                                 work, logistic, squared, other, discrete)
        lag_j, lag_delta = j, w[j] - old
        if averaging:
            credit_change(total, held_since, j, old, k)
            if k == inner - 1:
                close_epoch(total, held_since, w, out, inner)
                # the runtime storage flag, as matvec_columns passes it: one compiled residuals_into
                residuals_into(stored_sparse, Xf, data, indices, indptr, w, z)
                lag_delta = 0.0
    return c, lag_j, lag_delta
