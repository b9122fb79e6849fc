"""numba kernels of the certified non-private solver (:mod:`privcd.optimum`).

Everything here works on vectors of length n (linear predictor ``z = Xw``, its step ``dz``, the
dual vector ``u``) or on a small working-set problem (a k x k Hessian); products with X itself
are done by the caller. Loss and penalty are chosen by integer code (``privcd.kernels.dispatch``).
"""
import math

from numba import njit

from privcd.kernels.dispatch import (loss_conjugate, loss_derivative, loss_second_derivative, loss_value,
                                     penalty_prox, penalty_value)


@njit(cache=True)
def loss_derivatives_and_curvatures(code, z, y, u, h):
    """Fill ``u_i = l'(z_i, y_i)`` and ``h_i = l''(z_i, y_i)`` in place."""
    for i in range(z.shape[0]):
        u[i] = loss_derivative(code, z[i], y[i])
        h[i] = loss_second_derivative(code, z[i], y[i])


@njit(cache=True)
def mean_loss_along(code, z, dz, t, y):
    """``(1/n) sum_i l(z_i + t dz_i, y_i)``: the data-fitting term along a line search."""
    total = 0.0
    for i in range(z.shape[0]):
        total += loss_value(code, z[i] + t * dz[i], y[i])
    return total / z.shape[0]


@njit(cache=True)
def mean_loss_conjugate(code, u, scale, y):
    """``(1/n) sum_i l*(scale u_i, y_i)`` (``inf`` if a point lies outside the conjugate's domain)."""
    total = 0.0
    for i in range(u.shape[0]):
        total += loss_conjugate(code, scale * u[i], y[i])
    return total / u.shape[0]


@njit(cache=True)
def prox_gradient_scores(code, lam, w, grad, lipschitz, out):
    """Optimality violation of each coordinate j,
    ``out_j = sqrt(L_j) |w_j - prox_{psi_j / L_j}(w_j - grad_j / L_j)|``.

    Zero exactly where coordinate j satisfies its optimality condition; ``out_j^2 / 2`` is about
    the decrease one coordinate step can bring (Gauss-Southwell-Lipschitz scaling), so features of
    very different scales are compared fairly. A coordinate with ``L_j = 0`` (an all-zero column)
    has score 0.
    """
    for j in range(w.shape[0]):
        big_l = lipschitz[j]
        if big_l <= 0.0:
            out[j] = 0.0
            continue
        step = 1.0 / big_l
        out[j] = abs(w[j] - penalty_prox(code, w[j] - step * grad[j], step, lam)) * math.sqrt(big_l)


@njit(cache=True)
def penalized_quadratic_cd(code, lam, H, g, w0, v, max_epochs, tol):
    """Cyclic coordinate descent on a penalised quadratic model, in place on ``v``.

    Minimises ``q(v) = <g, v - w0> + (v - w0)^T H (v - w0) / 2 + sum_j psi_j(v_j)`` by exact
    coordinate minimisation (``v_j <- prox_{psi_j / H_jj}(v_j - r_j / H_jj)``), keeping the
    gradient ``r = g + H (v - w0)`` of the smooth part up to date (O(k) per changed coordinate).

    Parameters
    ----------
    code : int
        Penalty code (``kernels.dispatch``).
    lam : float
        Penalty strength.
    H : ndarray of shape (k, k)
        Symmetric positive semi-definite, C-ordered (row j is read as column j).
    g, w0 : ndarray of shape (k,)
        Gradient of the smooth part at ``w0`` and the expansion point.
    v : ndarray of shape (k,)
        Start point, overwritten with the result.
    max_epochs : int
        Budget of passes over the k coordinates.
    tol : float
        Stop after a pass whose largest move ``sqrt(H_jj) |delta v_j|`` is at most ``tol``.

    Returns
    -------
    int
        Passes made.
    """
    k = v.shape[0]
    r = g.copy()
    for j in range(k):
        shift = v[j] - w0[j]
        if shift != 0.0:
            for i in range(k):
                r[i] += H[j, i] * shift
    for epoch in range(1, max_epochs + 1):
        biggest = 0.0
        for j in range(k):
            hjj = H[j, j]
            if hjj <= 0.0:
                continue
            old = v[j]
            new = penalty_prox(code, old - r[j] / hjj, 1.0 / hjj, lam)
            delta = new - old
            if delta != 0.0:
                v[j] = new
                for i in range(k):
                    r[i] += H[j, i] * delta
                move = abs(delta) * math.sqrt(hjj)
                if move > biggest:
                    biggest = move
        if biggest <= tol:
            return epoch
    return max_epochs


@njit(cache=True)
def model_decrease(code, lam, g, w0, v):
    """``<g, v - w0> + psi(v) - psi(w0)``, summed coordinate by coordinate.

    The first-order decrease predicted for a proximal step from ``w0`` to ``v``; per-coordinate sums
    keep it accurate when ``v`` is within rounding of ``w0`` (the terms cancel one by one).
    """
    total = 0.0
    for j in range(g.shape[0]):
        total += g[j] * (v[j] - w0[j]) + (penalty_value(code, v[j], lam) - penalty_value(code, w0[j], lam))
    return total


@njit(cache=True)
def restore_dual_feasibility(code, theta, u, y):
    """Move each ``theta_i`` with ``l*(theta_i, y_i) = inf`` to the nearest point of the conjugate's domain
    on the segment towards ``u_i`` (in place); returns the largest move.

    ``u_i = l'(z_i, y_i)`` always lies in that domain (an interval), so 60 bisection steps find its
    boundary. A projected dual point leaves the domain by rounding (logistic records predicted with
    certainty have ``u_i`` within 1e-16 of 0), and then the moves are that small.
    """
    largest = 0.0
    for i in range(theta.shape[0]):
        if not math.isinf(loss_conjugate(code, theta[i], y[i])):
            continue
        inside, outside = u[i], theta[i]
        for _ in range(60):
            middle = 0.5 * (inside + outside)
            if math.isinf(loss_conjugate(code, middle, y[i])):
                outside = middle
            else:
                inside = middle
        largest = max(largest, abs(inside - theta[i]))
        theta[i] = inside
    return largest
