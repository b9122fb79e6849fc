"""DP-SkGD kernel: dp-skgd Algorithm 1 (sketched gradient descent over random coordinate blocks).

Each iteration draws a block S of coordinates from the sketch distribution, releases the clipped
gradient entries ``g_j = (1/n) sum_i clip(l'(<w, x_i>, y_i) X_ij, C_j)`` of the block, all taken
at the same iterate (Alg. 1 line 7 is a Jacobi step), plus Gaussian noise, and takes the
coordinate-wise proximal steps

    w_j <- prox_{gamma_j psi_j}(w_j - gamma_j (g_j + eta_j)),   j in S,

with ``gamma_j = step / M_j``: the step ``Gamma C`` of Algorithm 1 with ``Gamma = step P M^-1``
(Theorems 8-9) and ``C = P^-1`` on S (Definition 6), so the inclusion probabilities cancel and
never enter the kernel. The noise on coordinate j of block S has standard deviation
``noise_std[j] * sqrt(sum_{k in S} noise_weights[k])``, which covers both noise models of
:mod:`privcd.algorithms.dp_skgd`. The residuals ``z = Xw`` are kept up to date, so a block of size
tau costs O(tau n) dense (n loss derivatives, shared by the block's columns), O(nnz of its
columns) sparse. With ``inner > 0`` the iterates are averaged every ``inner`` steps (Alg. 1
line 9).

The uniform sketch (one coordinate, ``tau = 1``) is DP-CD: :mod:`privcd.algorithms.dp_skgd` runs
:func:`~privcd.kernels.dp_cd.dp_cd` for it, the one compiled copy of that loop, so the two agree
bit for bit by construction; this kernel runs the other sketches. Random stream, per iteration,
from the run's ``numpy.random.Generator``: the block (tau-nice: ``integers(k, p)`` for k < tau, a
partial Fisher-Yates shuffle; importance: ``random()`` draws for geometric skips and thinning, see
:func:`draw_block`; full: nothing), then one standard normal per block entry in block order.
These are the numbers numpy's own ``Generator`` methods give in the same order, which the numpy
reference and the tests use to replay a path.
"""
import math

import numpy as np
from numba import njit

from privcd.kernels.averaging import close_epoch, credit_change, record_final_output
from privcd.kernels.copy_values import copy_values
from privcd.kernels.discrete_noise import discrete_gaussian, noisy_value
from privcd.kernels.dispatch import penalty_prox
from privcd.kernels.evaluate import loss_derivatives_into
from privcd.kernels.draws import bounded_integer
from privcd.kernels.linalg import add_scaled_column, clipped_coordinate_gradient_sum, matvec_columns, residuals_into
from privcd.kernels.partial_sums import PARTIALS, block_count, block_ring, block_span, ring_total, scratch, start_ring

SKETCH_UNIFORM = 0
SKETCH_TAU_NICE = 1
SKETCH_IMPORTANCE = 2
SKETCH_FULL = 3


@njit(cache=True)
def draw_block(sketch, tau, probabilities, top, order, block, rng):
    """Draw the block S into ``block[:m]`` and return m (uniform sketch excluded).

    tau-nice: a partial Fisher-Yates shuffle of the persistent permutation ``order``; whatever the
    permutation it starts from, its first ``tau`` entries are a uniformly random ordered sample
    without replacement, so S is uniform over the subsets of size tau. Importance: coordinate j
    joins independently with probability ``probabilities[j]`` (S may be empty), drawn by thinning:
    candidates are independent Bernoulli(``top``) trials, ``top = max_j p_j``, visited by geometric
    skips ``floor(log(1 - U) / log(1 - top))`` (none when ``top = 1``), and candidate j is kept with
    probability ``p_j / top`` (one more uniform unless ``p_j = top``): about ``2 top p`` uniforms
    per block instead of p. Full: every coordinate, in increasing order. Draws from ``rng``.
    """
    p = order.shape[0]
    if sketch == SKETCH_TAU_NICE:
        for k in range(tau):
            r = bounded_integer(rng, k, p)
            chosen = order[r]
            order[r] = order[k]
            order[k] = chosen
            block[k] = chosen
        return tau
    if sketch == SKETCH_IMPORTANCE:
        m = 0
        j = -1
        log_miss = math.log1p(-top) if top < 1.0 else 0.0
        while True:
            if top < 1.0:
                skip = np.floor(math.log(1.0 - rng.random()) / log_miss)
                if skip >= p - 1 - j:
                    return m
                j += 1 + int(skip)
            else:
                j += 1
                if j == p:
                    return m
            if probabilities[j] == top or rng.random() * top < probabilities[j]:
                block[m] = j
                m += 1
    for j in range(p):
        block[j] = j
    return p


@njit(cache=True)
def block_gradients(is_sparse, Xf, data, indices, indptr, y, loss_code, thresholds, block, m, z,
                    derivatives, gradients, work):
    """The clipped gradient entries ``g_j``, ``j = block[b]``, into ``gradients[:m]``, all at the same z.

    Dense X: the n loss derivatives ``l'(z_i, y_i)`` are computed once per block (into
    ``derivatives``) and shared by its columns, so a block costs n derivative evaluations and
    ``|S| n`` multiply-clip-adds (the derivative, an ``exp`` for the logistic loss, is the expensive
    part). Sparse X: DP-CD's per-column sum, ``O(nnz)`` of the block's columns. Both sum in the
    order of :mod:`privcd.kernels.partial_sums` (``work``: its ``scratch(n)``), so dense and sparse
    X give the same bits.
    """
    n = y.shape[0]
    if is_sparse:
        for b in range(m):
            j = block[b]
            gradients[b] = clipped_coordinate_gradient_sum(is_sparse, Xf, data, indices, indptr, j, z, y,
                                                           loss_code, thresholds[j], work) / n
        return
    loss_derivatives_into(loss_code, z, y, derivatives)
    for b in range(m):
        j = block[b]
        gradients[b] = _dense_clipped_sum(derivatives, Xf, j, thresholds[j], work) / n


@njit(cache=True)
def _dense_clipped_sum(derivatives, Xf, j, threshold, work):
    """``sum_i clip(derivatives[i] X_ij, threshold)`` in the order of
    :mod:`privcd.kernels.partial_sums` (its block totals in block order, a block a SIMD loop into
    its ring, over unsigned rows as in :func:`privcd.kernels.linalg.threaded_lagged_clipped_gradient_sum`),
    which is the order of :func:`privcd.kernels.linalg.clipped_coordinate_gradient_sum` on dense
    and sparse X: the same bits; comparisons keep an infinite threshold exact."""
    n = Xf.shape[0]
    total = 0.0
    for b in range(block_count(n)):
        first, stop = block_span(n, b)
        ring = block_ring(work, n, b)
        base = np.uint64(first)
        start_ring(ring)
        for k in range(np.uint64(stop - first)):
            i = base + k
            g = derivatives[i] * Xf[i, j]
            g = g if g < threshold else threshold
            g = g if g > -threshold else -threshold
            ring[k + PARTIALS] = ring[k] + g
        total += ring_total(ring, stop - first)
    return total


@njit(cache=True)
def block_step(is_sparse, Xf, data, indices, indptr, y, loss_code, penalty_code, lam, step_sizes,
               thresholds, noise_std, noise_weights, block, m, derivatives, gradients, work, olds, w, z, rng,
               sigma_units=0):
    """One noisy proximal step on the coordinates ``block[:m]``, all gradients taken at the same w.

    Updates ``w`` and ``z = Xw`` in place; ``derivatives`` (n), ``gradients`` (p) and ``work``
    (:func:`~privcd.kernels.partial_sums.scratch`) are work space; the old values of ``w`` go to
    ``olds[:m]``. One ``rng.standard_normal()`` per block entry; a release (``sigma_units > 0``,
    ``noise_std`` the grid spacings) draws one discrete Gaussian integer of that standard deviation
    per entry instead and releases the entry on its grid
    (:func:`~privcd.kernels.discrete_noise.noisy_value`; the weights are not used).
    """
    block_gradients(is_sparse, Xf, data, indices, indptr, y, loss_code, thresholds, block, m, z,
                    derivatives, gradients, work)
    weight = 0.0
    for b in range(m):
        weight += noise_weights[block[b]]
    factor = math.sqrt(weight)
    for b in range(m):
        j = block[b]
        old = w[j]
        olds[b] = old
        gamma = step_sizes[j]
        if sigma_units > 0:
            noisy = noisy_value(gradients[b], noise_std[j], discrete_gaussian(rng, sigma_units), True)
        else:
            noisy = gradients[b] + noise_std[j] * factor * rng.standard_normal()
        new = penalty_prox(penalty_code, old - gamma * noisy, gamma, lam)
        if new != old:
            add_scaled_column(is_sparse, Xf, data, indices, indptr, j, new - old, z)
            w[j] = new


@njit(cache=True)
def dp_skgd(is_sparse, Xf, data, indices, indptr, y, loss_code, penalty_code, lam, sketch, tau,
            probabilities, step_sizes, thresholds, noise_std, noise_weights, n_iterations, inner,
            checkpoints, rng, w0, sigma_units=0):
    """Run DP-SkGD for ``n_iterations`` block steps from ``w0``.

    Parameters
    ----------
    sketch : int
        ``SKETCH_TAU_NICE``, ``SKETCH_IMPORTANCE`` or ``SKETCH_FULL`` (``SKETCH_UNIFORM`` is run by
        :func:`~privcd.kernels.dp_cd.dp_cd`).
    tau : int
        Block size of the tau-nice sketch (unused otherwise).
    probabilities : ndarray of shape (p,)
        Inclusion probabilities of the importance sketch (unused otherwise).
    step_sizes, thresholds : ndarray of shape (p,)
        ``gamma_j = step / M_j`` and clipping thresholds ``C_j``.
    noise_std, noise_weights : ndarray of shape (p,)
        The noise on coordinate j of block S has standard deviation
        ``noise_std[j] * sqrt(sum_{k in S} noise_weights[k])``.
    inner : int
        K of Algorithm 1 (average every K steps); 0 returns the last iterate, no averaging.
    checkpoints : int64 ndarray, increasing
        Iteration counts at which to record the current output (0 = before the first step).
    rng : numpy.random.Generator
        The run's generator (:func:`privcd.algorithms.base.kernel_rng`); advanced in place.
    sigma_units : int
        0: an experiment's Gaussian noise. ``> 0``: a private release, whose ``noise_std`` holds
        the grid spacings and each block entry gets a discrete Gaussian integer of standard
        deviation ``sigma_units`` in grid units (:func:`block_step`,
        :mod:`privcd.privacy.grid_gaussian`).

    Returns
    -------
    w_out : ndarray of shape (p,)
        The last iterate (``inner == 0``) or the last average ``w^T``.
    snapshots : ndarray of shape (len(checkpoints), p)
        The output at each checkpoint.
    """
    if sketch == SKETCH_UNIFORM:
        raise ValueError("the uniform sketch is DP-CD: run privcd.kernels.dp_cd.dp_cd")
    n = y.shape[0]
    p = w0.shape[0]
    w = w0.copy()
    z = matvec_columns(is_sparse, Xf, data, indices, indptr, w, n)
    out = w0.copy()
    snapshots = np.empty((checkpoints.shape[0], p))
    order = np.arange(p)
    top = probabilities.max() if sketch == SKETCH_IMPORTANCE else 0.0
    block = np.empty(p, dtype=np.int64)
    derivatives = np.empty(n)
    gradients = np.empty(p)
    work = scratch(n)
    olds = np.empty(p)
    averaging = inner > 0
    total = np.zeros(p)
    held_since = np.zeros(p, dtype=np.int64)
    c = 0
    for it in range(n_iterations):
        while c < checkpoints.shape[0] and checkpoints[c] == it:
            copy_values(out if averaging else w, snapshots[c])
            c += 1
        m = draw_block(sketch, tau, probabilities, top, order, block, rng)
        block_step(is_sparse, Xf, data, indices, indptr, y, loss_code, penalty_code, lam, step_sizes,
                   thresholds, noise_std, noise_weights, block, m, derivatives, gradients, work, olds, w, z, rng,
                   sigma_units)
        if averaging:
            k = it % inner
            for b in range(m):
                credit_change(total, held_since, block[b], olds[b], k)
            if k == inner - 1:
                close_epoch(total, held_since, w, out, inner)
                residuals_into(is_sparse, Xf, data, indices, indptr, w, z)
    record_final_output(checkpoints, c, snapshots, w, out, averaging)
    return out, snapshots
