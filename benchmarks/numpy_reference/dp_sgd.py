"""Plain numpy DP-SGD: one Python iteration per step, numpy vector operations inside.

``run(problem, plan, seed) -> w`` applies the update of :mod:`privcd.kernels.dp_sgd` for a plan of
:mod:`privcd.algorithms.dp_sgd`, on the kernel's random stream: the key
:func:`privcd.algorithms.base.kernel_key` ``(seed)`` and the numpy twins of
:mod:`privcd.kernels.streams` and :mod:`privcd.kernels.gaussian`, consumed in the kernel's order
(the batch, then p normals, per step). It follows the kernel's path (same batches, same noise) and
agrees with it to the rounding of the gradient sums.
"""
import numpy as np

from privcd.algorithms.base import kernel_key
from privcd.kernels.dp_sgd import SAMPLE_WITHOUT_REPLACEMENT
from privcd.kernels.elementary import log_positive_numpy
from privcd.kernels.gaussian import standard_normal_numpy
from privcd.kernels.streams import bounded_indices_numpy, uniform_fine_numpy


def batch_without_replacement(key, position, order, batch_size):
    """The kernel's partial Fisher-Yates shuffle of ``order`` (in place): ``(batch, next position)``."""
    n = order.shape[0]
    offsets, position = bounded_indices_numpy(key, position, n - np.arange(batch_size))
    for b, offset in enumerate(offsets):
        order[[b, b + offset]] = order[[b + offset, b]]
    return order[:batch_size].copy(), position


def poisson_batch(key, position, n, log_keep):
    """Records visited by the kernel's geometric skips: ``(batch, next position)``."""
    batch, i = [], -1
    while True:
        u = uniform_fine_numpy(key, [position])
        i += 1 + int(np.floor(log_positive_numpy(u)[0] / log_keep))
        position += 1
        if i >= n:
            return np.array(batch, dtype=np.int64), position
        batch.append(i)


def run(problem, plan, seed):
    """DP-SGD for ``plan`` from w = 0; returns the final iterate."""
    k = plan.kernel
    key = kernel_key(seed)
    X = problem.X.toarray() if problem.is_sparse else problem.X
    y = problem.y
    n, p = X.shape
    w = np.zeros(p)
    step, clip, b = k["step"], k["clip"], k["batch_size"]
    threshold = step * problem.lam
    order = np.arange(n)
    log_keep = np.log1p(-b / n) if b < n else -np.inf
    position = 0
    for _ in range(plan.n_iterations):
        if k["sampling"] == SAMPLE_WITHOUT_REPLACEMENT:
            batch, position = batch_without_replacement(key, position, order, b)
        else:
            batch, position = poisson_batch(key, position, n, log_keep)
        z = X[batch] @ w
        if problem.loss.name == "logistic":
            derivative = -y[batch] / (1.0 + np.exp(y[batch] * z))
        else:
            derivative = 2.0 * (z - y[batch])
        per_sample = derivative[:, None] * X[batch]
        norms = np.linalg.norm(per_sample, axis=1)
        per_sample *= np.minimum(1.0, clip / np.maximum(norms, 1e-300))[:, None]
        noise, position = standard_normal_numpy(key, position, p)
        w = w - step / b * (per_sample.sum(axis=0) + k["noise_std"] * noise)
        if problem.penalty.name == "l1":
            w = np.sign(w) * np.maximum(np.abs(w) - threshold, 0.0)
        elif problem.penalty.name == "l2":
            w = w / (1.0 + threshold)
    return w
