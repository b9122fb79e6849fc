"""Plain numpy DP-CD (and DP-CD-P): one Python iteration per coordinate step, numpy inside.

``run(problem, plan, seed) -> w`` applies the update of :mod:`privcd.kernels.dp_cd` (dp-cd
Algorithm 1, with the averaging of ``inner_iterations``) for a plan of
:mod:`privcd.algorithms.dp_cd`. It draws from the kernel's generator
(:func:`privcd.algorithms.base.kernel_rng`, ``np.random.default_rng(seed)``) in the kernel's order,
``integers(0, p)`` then ``standard_normal()`` per step: numba draws the same numbers from the same
PCG64 stream, so the reference follows the kernel's path (same coordinates, same noise) and agrees
with it to rounding.
"""
import numpy as np

from privcd.algorithms.base import kernel_rng
from privcd.algorithms.dp_cd import kernel_parameters


def derivatives(problem, z):
    """``l'(z_i, y_i)`` for every record (logistic or squared loss)."""
    y = problem.y
    if problem.loss.name == "logistic":
        return -y / (1.0 + np.exp(y * z))
    return 2.0 * (z - y)


def prox(problem, x, gamma):
    """``prox_{gamma psi}(x)`` coordinate-wise (``x`` and ``gamma`` scalars or arrays)."""
    threshold = gamma * problem.lam
    if problem.penalty.name == "l1":
        return np.sign(x) * np.maximum(np.abs(x) - threshold, 0.0)
    if problem.penalty.name == "l2":
        return x / (1.0 + threshold)
    return x


def dense_columns(problem):
    """X as a dense Fortran-ordered array."""
    return np.asfortranarray(problem.X.toarray() if problem.is_sparse else problem.X)


def run(problem, plan, seed):
    """DP-CD for ``plan`` from w = 0; returns the final iterate (or average)."""
    step_sizes, thresholds, noise_std, _ = kernel_parameters(problem, plan, seed)
    rng = kernel_rng(seed)
    X = dense_columns(problem)
    n, p = X.shape
    inner = plan.kernel["inner"]
    w = np.zeros(p)
    z = np.zeros(n)
    states = np.zeros(p)
    for it in range(plan.n_iterations):
        j = rng.integers(0, p)
        draw = rng.standard_normal()
        gradient = np.clip(derivatives(problem, z) * X[:, j], -thresholds[j], thresholds[j]).sum() / n
        gamma = step_sizes[j]
        new = prox(problem, w[j] - gamma * (gradient + noise_std[j] * draw), gamma)
        z += (new - w[j]) * X[:, j]
        w[j] = new
        if inner:
            states += w
            if (it + 1) % inner == 0:
                w = states / inner
                states[:] = 0.0
                z = X @ w
    return w
