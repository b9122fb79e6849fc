"""Plain numpy DP-GCD: one Python iteration per greedy step, numpy array operations inside.

``run(problem, plan, seed) -> w`` takes a plan of :mod:`privcd.algorithms.dp_gcd` and applies the
same update as :mod:`privcd.kernels.dp_gcd`: the full clipped gradient from the per-sample
coordinate gradients (an (n, p) array for dense X, one value per stored entry for sparse X), the
selection scores of the plan's rule, the argmax and one proximal coordinate step. The Laplace
draws come from the kernel's generator (:func:`privcd.algorithms.base.kernel_rng`,
``np.random.default_rng(seed)``, whose PCG64 stream numba draws from too) through the kernel's
inverse CDF of ``random()`` (p selection draws, then one release draw, per iteration), so both
follow the same random path; they differ by the rounding of the gradient sums (and if a uniform
draw is exactly 0, which the kernel redraws).
"""
import numpy as np

from privcd.algorithms.base import kernel_rng
from privcd.algorithms.dp_gcd import kernel_arrays


def run(problem, plan, seed):
    """The iterate after ``plan.n_iterations`` DP-GCD steps from w = 0."""
    k = kernel_arrays(problem, plan)
    rule = plan.info["rule"]
    rng = kernel_rng(seed)
    X = problem.columns
    y, lam = problem.y, problem.lam
    n, p = X.shape
    M = problem.M
    eligible = M > 0
    root_M = np.sqrt(np.where(eligible, M, 1.0))
    thresholds, steps = k["thresholds"], k["step_sizes"]
    w = np.zeros(p)
    for _ in range(plan.n_iterations):
        derivative = _loss_derivative(problem.loss.name, X @ w, y)
        gradient = _clipped_gradient(X, derivative, thresholds)
        u = rng.random(p + 1)
        draws = np.copysign(-np.log(2.0 * np.minimum(u, 1.0 - u)), u - 0.5)
        if rule == "algorithm-1":
            scores = _subgradient_distance(problem.penalty.name, gradient + k["selection_scale"] * draws[:p],
                                           w, lam) / root_M
        else:
            scores = _rule_score(rule, problem.penalty.name, gradient, w, lam, M, root_M)
            scores = scores + k["selection_scale"] / root_M * draws[:p]
        scores[~eligible] = -np.inf
        j = int(np.argmax(scores))
        if not eligible[j]:
            continue
        noisy = gradient[j] + k["release_scale"][j] * draws[p]
        w[j] = _prox(problem.penalty.name, w[j] - steps[j] * noisy, steps[j], lam)
    return w


def _clipped_gradient(X, derivative, thresholds):
    """``(1/n) sum_i clip(l'(z_i) X_ij, C_j)`` for every j."""
    n, p = X.shape
    if isinstance(X, np.ndarray):
        return np.clip(derivative[:, None] * X, -thresholds, thresholds).sum(axis=0) / n
    column = np.repeat(np.arange(p), np.diff(X.indptr))
    per_sample = np.clip(derivative[X.indices] * X.data, -thresholds[column], thresholds[column])
    return np.bincount(column, weights=per_sample, minlength=p) / n


def _loss_derivative(name, z, y):
    if name == "logistic":
        return -y / (1.0 + np.exp(y * z))
    return 2.0 * (z - y)


def _prox(name, x, step, lam):
    if name == "l1":
        return np.sign(x) * np.maximum(np.abs(x) - step * lam, 0.0)
    if name == "l2":
        return x / (1.0 + step * lam)
    return x


def _penalty(name, w, lam):
    if name == "l1":
        return lam * np.abs(w)
    if name == "l2":
        return 0.5 * lam * w * w
    return np.zeros_like(w)


def _subgradient_distance(name, v, w, lam):
    if name == "l1":
        return np.where(w == 0.0, np.maximum(np.abs(v) - lam, 0.0), np.abs(v + lam * np.sign(w)))
    if name == "l2":
        return np.abs(v + lam * w)
    return np.abs(v)


def _rule_score(rule, name, gradient, w, lam, M, root_M):
    if rule == "gs-s":
        return _subgradient_distance(name, gradient, w, lam) / root_M
    with np.errstate(divide="ignore", invalid="ignore"):
        move = _prox(name, w - gradient / M, 1.0 / M, lam) - w
    if rule == "gs-r":
        return root_M * np.abs(move)
    decrease = -(gradient * move + 0.5 * M * move**2 + _penalty(name, w + move, lam) - _penalty(name, w, lam))
    return np.sqrt(2.0 * np.maximum(decrease, 0.0))
