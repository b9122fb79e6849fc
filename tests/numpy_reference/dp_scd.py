"""Plain numpy DP-SCD and SEQDP-SCD: a Python loop over the records of each mini-batch.

The update of :mod:`privcd.kernels.dp_scd` for a plan of :mod:`privcd.algorithms.dp_scd` or
:mod:`privcd.algorithms.seqdp_scd` (``plan.kernel["sequential"]`` chooses), written as a numpy user
would: per record a numpy dot product with ``v`` and the scalar update of dp-scd eq. (7), numpy for
the noise. It draws in the kernel's order (the batch by partial Fisher-Yates; with noise on every
dual, L normals for the noise the members missed, added lazily as the kernel does; then L + p
normals);
with :class:`~numpy_reference.draws.StreamDraws` (the default) it replays the kernel's
stream, follows its path and agrees with it to rounding.
"""
import math

import numpy as np

from .draws import StreamDraws
from .dp_sgd import batch_without_replacement


def run(problem, plan, seed, draws=StreamDraws):
    """``theta = v / (lam n)`` after ``plan.n_iterations`` mini-batches from ``alpha = 0, v = 0``,
    random numbers from ``draws(seed)``."""
    k = plan.kernel
    draws = draws(seed)
    X = problem.X.toarray() if problem.is_sparse else np.asarray(problem.X)
    y = problem.y
    n, p = X.shape
    lam_n = problem.lam * n
    sq_norms = np.einsum("ij,ij->i", X, X)
    alpha = np.zeros(n)
    v = np.zeros(p)
    L, clip = k["batch_size"], k["clip"]
    order = np.arange(n)
    noised = np.zeros(n, dtype=np.int64)
    for it in range(plan.n_iterations):
        batch = batch_without_replacement(draws, order, L)
        if k["hidden_batch"]:
            alpha[batch] += k["noise_std"] * np.sqrt(it - noised[batch]) * draws.normals(L)
            noised[batch] = it + 1
        zetas = np.empty(L)
        for b, j in enumerate(batch):
            z = X[j] @ v / lam_n
            q = k["subproblem_scale"] * sq_norms[j] / lam_n
            start = _projected(problem.loss.name, alpha[j], y[j], k["box"]) if k["from_projected"] else alpha[j]
            zeta = _update(problem.loss.name, start, y[j], z, q, k["box"])
            zetas[b] = min(clip, max(-clip, zeta))
            if k["sequential"]:
                alpha[j] += zetas[b]
                v += zetas[b] * X[j]
        if not k["sequential"]:
            for b, j in enumerate(batch):
                alpha[j] += zetas[b]
                v += zetas[b] * X[j]
        noise = draws.normals(L + p)
        alpha[batch] += k["noise_std"] * noise[:L]
        v += k["noise_std"] * noise[L:]
    return v / lam_n


def _projected(loss, alpha, y, box):
    """``alpha`` projected onto the conjugate's domain (``update_from="projected"``)."""
    if loss == "hinge":
        return y * min(1.0, max(0.0, y * alpha))
    if loss == "logistic":
        return y * min(1.0 - box, max(box, y * alpha))
    return alpha


def _update(loss, alpha, y, z, q, box):
    """Minimiser of ``l*(-(alpha + zeta)) + z zeta + q zeta^2 / 2`` (one Newton step for logistic)."""
    if loss == "squared":
        return (2.0 * (y - z) - alpha) / (1.0 + 2.0 * q)
    t_old = y * alpha
    if loss == "hinge":
        margin = 1.0 - y * z
        t = t_old + margin / q if q > 0 else (1.0 if margin > 0 else 0.0 if margin < 0 else t_old)
        return y * min(1.0, max(0.0, t)) - alpha
    t0 = min(1.0 - box, max(box, t_old))
    slope = math.log(t0) - math.log1p(-t0) + y * z + q * (t0 - t_old)
    curvature = 1.0 / (t0 * (1.0 - t0)) + q
    return y * min(1.0 - box, max(box, t0 - slope / curvature)) - alpha
