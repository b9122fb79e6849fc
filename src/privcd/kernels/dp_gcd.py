"""DP-GCD kernel: dp-gcd Algorithm 1 and its proximal version (Algorithm 2, Appendix C).

Each iteration computes every clipped gradient entry at the current iterate in one pass over X,

    g_j = (1/n) sum_i clip(l'(<w, x_i>, y_i) X_ij, C_j),

selects one coordinate by report-noisy-max with Laplace noise, releases the chosen entry with fresh
Laplace noise and takes the step (Alg. 1 line 4 / Alg. 2 line 4)

    w_j <- prox_{gamma_j psi_j}(w_j - gamma_j (g_j + eta_j)),   eta_j ~ Lap(b_j),

which is Algorithm 1's step when ``psi = 0``. The residuals ``z = Xw`` are kept up to date, so an
iteration costs O(nnz(X)) for the gradient plus O(n) for the derivatives ``l'(z_i, y_i)`` (computed
once an iteration) and O(nnz of column j) for the update.

Selection rules (``rule``), with ``L_j`` a standard Laplace draw and ``s_j = sel_scale_j`` the
selection noise scale in gradient units:

``RULE_ALGORITHM_1`` (Alg. 1 line 3, noise inside the absolute value, for a smooth psi)
    ``argmax_j |g_j + psi_j'(w_j) + s_j L_j| / sqrt(M_j)``;
``RULE_GS_S``, ``RULE_GS_R``, ``RULE_GS_Q`` (Appendix C, noise added to the score)
    ``argmax_j score_j + (s_j / sqrt(M_j)) L_j`` with the noise-free scores of
    :func:`rule_score`.

Every iteration draws p selection Laplace variables then one release variable (each from one
``rng.random()`` of the run's ``numpy.random.Generator``, :func:`standard_laplace`), whatever the
noise scales and whatever w, so configurations that differ only in their scales share them
(:func:`dp_gcd_many`). A release (``release_units > 0``) draws every variable as a discrete Laplace
integer: it selects by :func:`select_on_grid` and releases the gradient entry on a grid
(:func:`dp_gcd`). Each gradient entry is summed over the stored entries of its column in increasing row
order, so dense and sparse X give bit-identical results.
"""
import math

import numpy as np
from numba import njit, prange

from privcd.kernels.copy_values import copy_values
from privcd.kernels.discrete_noise import discrete_laplace, noisy_value
from privcd.kernels.dispatch import penalty_prox, penalty_value
from privcd.kernels.evaluate import loss_derivatives_into
from privcd.kernels.linalg import add_scaled_column, matvec_columns
from privcd.penalties import l1, l2, none

RULE_ALGORITHM_1 = 0
RULE_GS_S = 1
RULE_GS_R = 2
RULE_GS_Q = 3
# The solo kernel's work shares (dp_gcd): samples a thread takes at a time for the derivatives, and
# columns for the gradient (the four the dense sum interleaves).
ROW_BLOCK = 4096
COLUMN_BLOCK = 4


@njit(cache=True)
def clipped_gradient(is_sparse, Xf, data, indices, indptr, derivatives, thresholds, out):
    """``out_j = (1/n) sum_i clip(derivatives_i X_ij, C_j)`` for every j, in one pass over X.

    ``derivatives_i = l'(z_i, y_i)``, so ``derivatives_i X_ij`` is the per-sample j-th gradient entry
    (dp-cd Section 5.1). Each column is summed sequentially over its stored rows in increasing
    order (a dense zero adds an exact zero): dense and sparse storage give the same bits.
    """
    clipped_gradient_columns(is_sparse, Xf, data, indices, indptr, derivatives, thresholds, out, 0, out.shape[0])


@njit(inline="always")
def clipped_gradient_columns(is_sparse, Xf, data, indices, indptr, derivatives, thresholds, out, first, stop):
    """:func:`clipped_gradient`'s entries ``first <= j < stop`` (each the same sum in the same order
    whatever the range). The dense branch sums four columns side by side for instruction-level
    parallelism."""
    n = derivatives.shape[0]
    if is_sparse:
        for j in range(first, stop):
            threshold = thresholds[j]
            total = 0.0
            for k in range(indptr[j], indptr[j + 1]):
                term = derivatives[indices[k]] * data[k]
                term = term if term < threshold else threshold
                total += term if term > -threshold else -threshold
            out[j] = total / n
        return
    p4 = stop - (stop - first) % 4
    for j in range(first, p4, 4):
        c0 = thresholds[j]
        c1 = thresholds[j + 1]
        c2 = thresholds[j + 2]
        c3 = thresholds[j + 3]
        t0 = 0.0
        t1 = 0.0
        t2 = 0.0
        t3 = 0.0
        for i in range(n):
            d = derivatives[i]
            v0 = d * Xf[i, j]
            v1 = d * Xf[i, j + 1]
            v2 = d * Xf[i, j + 2]
            v3 = d * Xf[i, j + 3]
            v0 = v0 if v0 < c0 else c0
            v1 = v1 if v1 < c1 else c1
            v2 = v2 if v2 < c2 else c2
            v3 = v3 if v3 < c3 else c3
            t0 += v0 if v0 > -c0 else -c0
            t1 += v1 if v1 > -c1 else -c1
            t2 += v2 if v2 > -c2 else -c2
            t3 += v3 if v3 > -c3 else -c3
        out[j] = t0 / n
        out[j + 1] = t1 / n
        out[j + 2] = t2 / n
        out[j + 3] = t3 / n
    for j in range(p4, stop):
        threshold = thresholds[j]
        total = 0.0
        for i in range(n):
            term = derivatives[i] * Xf[i, j]
            term = term if term < threshold else threshold
            total += term if term > -threshold else -threshold
        out[j] = total / n


@njit(cache=True)
def standard_laplace(rng):
    """One draw of the standard Laplace distribution (density ``exp(-|x|) / 2``) from ``rng``.

    Inverse CDF of one uniform ``u = rng.random()`` in (0, 1) (redrawn if 0):
    ``sign(u - 1/2) (-log(2 min(u, 1 - u)))``, written without a data-dependent branch (``1 - u``
    is exact for ``u >= 1/2``). numba's ``rng.laplace(0.0, 1.0)`` consumes the same uniform and
    agrees to rounding (it branches on ``u`` and computes ``log(2 - u - u)``) but costs nearly twice
    as much (benchmarks/README.md).
    """
    u = rng.random()
    while u == 0.0:
        u = rng.random()
    return math.copysign(-math.log(2.0 * min(u, 1.0 - u)), u - 0.5)


@njit(cache=True)
def subgradient_distance(penalty_code, v, w_j, lam):
    """``min_{xi in d psi_j(w_j)} |v + xi|`` (the GS-s quantity of dp-gcd Appendix C); NaN for an unknown code.

    No penalty: ``|v|``; L2: ``|v + lam w_j|``; L1: ``|v + lam sign(w_j)|`` if ``w_j != 0``,
    ``max(|v| - lam, 0)`` (distance to ``[-lam, lam]``) if ``w_j = 0``.
    """
    if penalty_code == none.CODE:
        return abs(v)
    if penalty_code == l2.CODE:
        return abs(v + lam * w_j)
    if penalty_code == l1.CODE:
        if w_j > 0.0:
            return abs(v + lam)
        if w_j < 0.0:
            return abs(v - lam)
        return max(abs(v) - lam, 0.0)
    return math.nan


@njit(cache=True)
def rule_score(rule, penalty_code, lam, g, w_j, M_j):
    """Noise-free greedy score of coordinate j (dp-gcd Appendix C), ``(1/sqrt(M_j))``-Lipschitz in ``g``.

    ``RULE_GS_S`` and ``RULE_ALGORITHM_1``: ``min_{xi in d psi_j(w_j)} |g + xi| / sqrt(M_j)``.
    ``RULE_GS_R``: ``sqrt(M_j) |prox_{psi_j / M_j}(w_j - g / M_j) - w_j|``.
    ``RULE_GS_Q``: ``sqrt(2 q)`` with ``q = -min_a (g a + M_j a^2 / 2 + psi_j(w_j + a) - psi_j(w_j))``
    the model decrease, minimised at ``a = prox_{psi_j / M_j}(w_j - g / M_j) - w_j``. The square root
    keeps the argmax and makes the score ``(1/sqrt(M_j))``-Lipschitz in ``g`` like the others:
    ``dq/dg = -a`` and, ``psi_j`` being convex, ``q >= M_j a^2 / 2``. (The paper writes
    ``argmax_j min_a``, the decrease with its sign flipped; the rule takes the largest decrease.)
    GS-s and GS-r are Lipschitz because distances and proximal operators are 1-Lipschitz.
    """
    if rule == RULE_GS_S or rule == RULE_ALGORITHM_1:
        return subgradient_distance(penalty_code, g, w_j, lam) / math.sqrt(M_j)
    step = 1.0 / M_j
    move = penalty_prox(penalty_code, w_j - g * step, step, lam) - w_j
    if rule == RULE_GS_R:
        return math.sqrt(M_j) * abs(move)
    if rule == RULE_GS_Q:
        decrease = -(g * move + 0.5 * M_j * move * move
                     + penalty_value(penalty_code, w_j + move, lam) - penalty_value(penalty_code, w_j, lam))
        return math.sqrt(2.0 * max(decrease, 0.0))
    return math.nan


@njit(cache=True)
def noisy_score(rule, penalty_code, lam, g, w_j, M_j, sel_scale_j, laplace_draw):
    """The report-noisy-max score of coordinate j for one standard Laplace draw.

    Algorithm 1 (dp-gcd Alg. 1 line 3) puts the noise ``chi_j = sel_scale_j L`` inside:
    ``|g + psi_j'(w_j) + chi_j| / sqrt(M_j)``; the Appendix C rules add ``(sel_scale_j / sqrt(M_j)) L``
    to :func:`rule_score`.
    """
    if rule == RULE_ALGORITHM_1:
        return rule_score(rule, penalty_code, lam, g + sel_scale_j * laplace_draw, w_j, M_j)
    return rule_score(rule, penalty_code, lam, g, w_j, M_j) + sel_scale_j / math.sqrt(M_j) * laplace_draw


@njit(cache=True)
def select_coordinate(rule, penalty_code, lam, gradient, w, M, sel_scale, laplace_draws):
    """``argmax_j`` of :func:`noisy_score` over the coordinates with ``M_j > 0`` (first index on ties).

    Returns -1 when no coordinate has ``M_j > 0`` (X is zero).
    """
    best = -math.inf
    chosen = -1
    for j in range(w.shape[0]):
        if M[j] > 0.0:
            score = noisy_score(rule, penalty_code, lam, gradient[j], w[j], M[j], sel_scale[j],
                                laplace_draws[j])
            if score > best:
                best = score
                chosen = j
    return chosen


GRID_LIMIT = 2**50  # the largest magnitude of a grid integer of select_on_grid (int64 sums stay exact)
NO_GRID_SCORE = -1  # grid_score's answer for a rule and penalty it has no integer score for


@njit(cache=True)
def grid_units(value, spacing):
    """``rint(fl(value / spacing))`` as an int64, clamped to ``[-2^50, 2^50]`` (1-Lipschitz, so a
    bound on how far two values' integers lie apart survives it); 0 when ``spacing`` is 0 (a
    clipping threshold of 0, whose clipped sum is exactly 0)."""
    if spacing == 0.0:
        return np.int64(0)
    units = np.rint(value / spacing)
    if units > GRID_LIMIT:
        return np.int64(GRID_LIMIT)
    if units < -GRID_LIMIT:
        return np.int64(-GRID_LIMIT)
    return np.int64(units)


@njit(cache=True)
def soft_threshold_units(x, threshold):
    """``sign(x) max(|x| - threshold, 0)`` on integers."""
    if x > threshold:
        return x - threshold
    if x < -threshold:
        return x + threshold
    return np.int64(0)


@njit(cache=True)
def grid_signed_value(penalty_code, lam, g, w_j, spacing):
    """``U + R``: the grid integer of ``g`` plus that of the public ``psi_j'(w_j)`` (``lam w_j`` for
    L2, nothing without a penalty), each on the release's grid of coordinate j."""
    units = grid_units(g, spacing)
    if penalty_code == l2.CODE:
        return units + grid_units(lam * w_j, spacing)
    return units


@njit(cache=True)
def grid_score(rule, penalty_code, lam, g, w_j, M_j, spacing):
    """The noise-free score of :func:`rule_score` in integer units of ``h_j / sqrt(M_j)``, computed
    from the grid integers ``U = rint(g / h_j)`` and the public ``R = rint(lam w_j / h_j)``,
    ``A = rint(M_j w_j / h_j)``, ``L = rint(lam / h_j)`` (:func:`grid_units`); ``NO_GRID_SCORE``
    where it has none (GS-q with L1, an unknown penalty).

    ``h_j / sqrt(M_j) = 2 clip / (n K sqrt(tr M))`` is the same for every j
    (:func:`privcd.privacy.greedy_composition.grid_selection_noise`), so these integers compare
    across coordinates. Each score moves by at most ``|U - U'| + 1`` when ``U`` moves to ``U'``:

    * no penalty, every rule: ``|U|``;
    * L2, GS-s and Algorithm 1: ``|U + R|``; GS-r: ``floor(|U + R| fl(M_j / (M_j + lam)))``; GS-q:
      ``floor(|U + R| fl(sqrt(M_j / (M_j + lam))))`` (the rules' closed forms for a quadratic
      penalty; a factor at most 1, one rounding of relative size ``2^-53`` on a product below
      ``2^51``, and the floor: at most 1 more);
    * L1, GS-s: ``|U + L sign(w_j)|`` if ``w_j != 0``, ``max(|U| - L, 0)`` if ``w_j = 0``; GS-r:
      ``|soft(A - U, L) - A|``, ``M_j`` times the proximal step in gradient units (soft
      thresholding is 1-Lipschitz).
    """
    if penalty_code == none.CODE:
        return abs(grid_units(g, spacing))
    if penalty_code == l2.CODE:
        shifted = abs(grid_signed_value(penalty_code, lam, g, w_j, spacing))
        if rule == RULE_GS_R:
            return np.int64(math.floor(shifted * (M_j / (M_j + lam))))
        if rule == RULE_GS_Q:
            return np.int64(math.floor(shifted * math.sqrt(M_j / (M_j + lam))))
        return shifted
    if penalty_code == l1.CODE:
        units = grid_units(g, spacing)
        threshold = grid_units(lam, spacing)
        if rule == RULE_GS_S:
            if w_j > 0.0:
                return abs(units + threshold)
            if w_j < 0.0:
                return abs(units - threshold)
            return max(abs(units) - threshold, np.int64(0))
        if rule == RULE_GS_R:
            origin = grid_units(M_j * w_j, spacing)
            return abs(soft_threshold_units(origin - units, threshold) - origin)
    return np.int64(NO_GRID_SCORE)


def has_grid_score(rule, penalty_code):
    """Whether :func:`select_on_grid` has an integer score for ``rule`` under the penalty (Algorithm
    1's is GS-s's, with the noise inside)."""
    probe = RULE_GS_S if rule == RULE_ALGORITHM_1 else rule
    return grid_score(probe, penalty_code, 1.0, 0.0, 0.0, 1.0, 1.0) != NO_GRID_SCORE


@njit(cache=True)
def select_on_grid(rule, penalty_code, lam, gradient, w, M, spacings, draws):
    """A release's report-noisy-max: ``argmax_j`` over the coordinates with ``M_j > 0`` (first index
    on ties) of ``|U_j + R_j + Z_j|`` (Algorithm 1, :func:`grid_signed_value`) or
    ``grid_score_j + Z_j`` (the Appendix C rules, :func:`grid_score`), ``Z_j`` the integer
    ``draws`` (discrete Laplace), all in int64: no floating-point noise.

    Fixing the other draws, coordinate i wins exactly when ``Z_i`` lies in one tail (two for
    Algorithm 1) whose end moves by at most ``2 S'`` between neighbours whose scores move by at
    most ``S'``; a discrete Laplace tail of scale t changes by at most ``exp(2 S' / t)`` then
    (:func:`privcd.privacy.greedy_composition.grid_selection_noise`). Returns -1 when no
    coordinate has ``M_j > 0``.
    """
    best = np.int64(0)
    chosen = -1
    for j in range(w.shape[0]):
        if M[j] > 0.0:
            if rule == RULE_ALGORITHM_1:
                score = abs(grid_signed_value(penalty_code, lam, gradient[j], w[j], spacings[j]) + draws[j])
            else:
                score = grid_score(rule, penalty_code, lam, gradient[j], w[j], M[j], spacings[j]) + draws[j]
            if chosen < 0 or score > best:
                best = score
                chosen = j
    return chosen


@njit(cache=True, parallel=True)
def dp_gcd(is_sparse, Xf, data, indices, indptr, y, loss_code, penalty_code, lam, M, step_sizes,
           thresholds, sel_scale, release_scale, rule, n_iterations, checkpoints, rng, w0, release_units=0,
           selection_units=0):
    """Run DP-GCD for ``n_iterations`` greedy coordinate steps from ``w0``.

    Parameters
    ----------
    M, step_sizes, thresholds : ndarray of shape (p,)
        Coordinate-wise smoothness constants ``M_j``, step sizes ``gamma_j`` and clipping thresholds
        ``C_j``.
    sel_scale, release_scale : ndarray of shape (p,)
        Laplace scales of the selection noise (gradient units) and of the released gradient entry.
    rule : int
        ``RULE_ALGORITHM_1``, ``RULE_GS_S``, ``RULE_GS_R`` or ``RULE_GS_Q``.
    checkpoints : int64 ndarray, increasing
        Iteration counts at which to record the iterate (0 = before the first step).
    rng : numpy.random.Generator
        The run's generator (:func:`privcd.algorithms.base.kernel_rng`); advanced in place.
    release_units, selection_units : int
        0: an experiment, ``sel_scale`` and ``release_scale`` the Laplace scales. A release (both
        positive): ``release_scale`` holds the grid spacings ``h_j``, the release draw is a
        discrete Laplace integer of scale ``release_units`` in grid units
        (:func:`~privcd.kernels.discrete_noise.noisy_value`), and the selection draws are discrete
        Laplace integers of scale ``selection_units`` added to integer scores
        (:func:`select_on_grid`; ``sel_scale`` unused;
        :mod:`privcd.privacy.greedy_composition`).

    Returns
    -------
    w : ndarray of shape (p,)
        The last iterate.
    snapshots : ndarray of shape (len(checkpoints), p)
        The iterate at each checkpoint.
    selected : int64 ndarray of shape (n_iterations,)
        The coordinate updated at each iteration (-1 if X is zero).

    Each iteration's derivatives (in blocks of :data:`ROW_BLOCK` samples) and clipped gradient (in
    blocks of :data:`COLUMN_BLOCK` columns) are shared among numba's threads by a ``prange``: every
    entry is the same expression or the same sum in the same order, so the bits do not depend on
    the number of threads (:func:`greedy_step` computes them on one thread, for
    :func:`dp_gcd_many`). With 2 threads here (``python -m benchmarks --only shapes``, one run): 0.47 to
    0.25 ms an iteration on 1,000 x 1,000, 0.61 to 0.35 on 2,600 x 500, 0.080 to 0.057 on 20,640 x 8.
    """
    n = y.shape[0]
    p = w0.shape[0]
    w = w0.copy()
    z = matvec_columns(is_sparse, Xf, data, indices, indptr, w, n)
    derivatives = np.empty(n)
    gradient = np.empty(p)
    draws = np.empty(p)
    grid_draws = np.zeros(p, dtype=np.int64)
    snapshots = np.empty((checkpoints.shape[0], p))
    selected = np.empty(n_iterations, dtype=np.int64)
    row_blocks = (n + ROW_BLOCK - 1) // ROW_BLOCK
    column_blocks = (p + COLUMN_BLOCK - 1) // COLUMN_BLOCK
    c = 0
    for it in range(n_iterations):
        while c < checkpoints.shape[0] and checkpoints[c] == it:
            copy_values(w, snapshots[c])
            c += 1
        if release_units > 0:
            for j in range(p):
                grid_draws[j] = discrete_laplace(rng, selection_units)
            release_draw = float(discrete_laplace(rng, release_units))
        else:
            for j in range(p):
                draws[j] = standard_laplace(rng)
            release_draw = standard_laplace(rng)
        for b in prange(row_blocks):
            first, stop = b * ROW_BLOCK, min(n, (b + 1) * ROW_BLOCK)
            loss_derivatives_into(loss_code, z[first:stop], y[first:stop], derivatives[first:stop])
        for b in prange(column_blocks):
            clipped_gradient_columns(is_sparse, Xf, data, indices, indptr, derivatives, thresholds, gradient,
                                     b * COLUMN_BLOCK, min(p, (b + 1) * COLUMN_BLOCK))
        if release_units > 0:
            j = select_on_grid(rule, penalty_code, lam, gradient, w, M, release_scale, grid_draws)
        else:
            j = select_coordinate(rule, penalty_code, lam, gradient, w, M, sel_scale, draws)
        selected[it] = noisy_step(is_sparse, Xf, data, indices, indptr, penalty_code, lam, step_sizes, release_scale,
                                  release_draw, w, z, gradient, j, release_units > 0)
    while c < checkpoints.shape[0]:
        copy_values(w, snapshots[c])
        c += 1
    return w, snapshots, selected


@njit(inline="always")
def greedy_step(is_sparse, Xf, data, indices, indptr, y, loss_code, penalty_code, lam, M, step_sizes, thresholds,
                sel_scale, release_scale, rule, draws, release_draw, w, z, derivatives, gradient):
    """One iteration on ``w`` (and its residuals ``z = Xw``) with the selection draws ``draws`` and
    the release draw ``release_draw``: the clipped gradient, the report-noisy-max selection and the
    noisy proximal step (module docstring). Returns the selected coordinate (-1 if X is zero).
    ``derivatives`` and ``gradient`` are scratch arrays of n and p entries."""
    loss_derivatives_into(loss_code, z, y, derivatives)
    clipped_gradient(is_sparse, Xf, data, indices, indptr, derivatives, thresholds, gradient)
    j = select_coordinate(rule, penalty_code, lam, gradient, w, M, sel_scale, draws)
    return noisy_step(is_sparse, Xf, data, indices, indptr, penalty_code, lam, step_sizes, release_scale, release_draw, w,
                      z, gradient, j, False)


@njit(inline="always")
def noisy_step(is_sparse, Xf, data, indices, indptr, penalty_code, lam, step_sizes, release_scale, release_draw, w, z,
               gradient, j, discrete):
    """The rest of an iteration once ``gradient`` holds the clipped gradient and ``j`` is the selected
    coordinate: the noisy proximal step on ``w`` and ``z``, its gradient entry released by
    :func:`~privcd.kernels.discrete_noise.noisy_value` (``discrete``: on a release's grid of
    spacings ``release_scale``). Returns ``j`` (-1 if X is zero, and nothing moves)."""
    if j < 0:
        return j
    gamma = step_sizes[j]
    old = w[j]
    new = penalty_prox(penalty_code, old - gamma * noisy_value(gradient[j], release_scale[j], release_draw, discrete),
                       gamma, lam)
    if new != old:
        add_scaled_column(is_sparse, Xf, data, indices, indptr, j, new - old, z)
        w[j] = new
    return j


@njit(cache=True, parallel=True)
def dp_gcd_many(is_sparse, Xf, data, indices, indptr, y, loss_code, penalty_code, lam, M, step_sizes, thresholds,
                sel_scale, release_scale, rule, n_iterations, checkpoints, rng, W0):
    """Run K configurations of DP-GCD that share their random draws: configuration k is
    ``dp_gcd(..., step_sizes[k], thresholds[k], sel_scale[k], release_scale[k], ..., W0[k])`` with
    every configuration given a generator in the state of ``rng``, bit for bit.

    The Laplace draws (p for the selection, then one for the release, each iteration) come from
    the generator alone, never from w or the scales, so each iteration draws them once for all K
    and a ``prange`` over the configurations takes each through it with :func:`greedy_step`, the
    solo kernel's iteration (so the result does not depend on the number of threads); the draws
    are read while still in cache. On dorothea (350 x 72,113 sparse, GS-r, 20 iterations, one
    thread, medians of 3): 80 ms a run in a group of 8 against 113 alone, 57 in a group of 32
    against 89 alone (other step sizes and thresholds).

    Parameters as :func:`dp_gcd`, with ``step_sizes``, ``thresholds``, ``sel_scale`` and
    ``release_scale`` of shape (K, p) and ``W0`` of shape (K, p). Returns ``W`` (K, p),
    ``snapshots`` (K, len(checkpoints), p) and ``selected`` (K, n_iterations).
    """
    n = y.shape[0]
    K, p = W0.shape
    W = W0.copy()
    Z = np.empty((K, n))
    for k in range(K):
        Z[k] = matvec_columns(is_sparse, Xf, data, indices, indptr, W0[k], n)
    n_checkpoints = checkpoints.shape[0]
    snapshots = np.empty((K, n_checkpoints, p))
    selected = np.empty((K, n_iterations), dtype=np.int64)
    derivatives = np.empty((K, n))
    gradients = np.empty((K, p))
    draws = np.empty(p)
    c = 0
    for it in range(n_iterations):
        while c < n_checkpoints and checkpoints[c] == it:
            for k in range(K):
                copy_values(W[k], snapshots[k, c])
            c += 1
        for j in range(p):  # dp_gcd's order of draws
            draws[j] = standard_laplace(rng)
        release_draw = standard_laplace(rng)
        for k in prange(K):
            selected[k, it] = greedy_step(is_sparse, Xf, data, indices, indptr, y, loss_code, penalty_code, lam, M,
                                          step_sizes[k], thresholds[k], sel_scale[k], release_scale[k], rule, draws,
                                          release_draw, W[k], Z[k], derivatives[k], gradients[k])
    while c < n_checkpoints:
        for k in range(K):
            copy_values(W[k], snapshots[k, c])
        c += 1
    return W, snapshots, selected
