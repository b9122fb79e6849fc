"""Plain numpy DP-SGD: one Python iteration per step, numpy vector operations inside.

``run(problem, plan, seed, draws=StreamDraws) -> w`` applies the update of
:mod:`privcd.kernels.dp_sgd` for a plan of :mod:`privcd.algorithms.dp_sgd`, drawing as the kernel
does: the batches from stream 0, p normals a step from stream 1. With :class:`~numpy_reference.draws.StreamDraws`
it replays the kernel's stream and follows its path (same batches, same noise), agreeing with it to
the rounding of the gradient sums; with ``NumpyDraws`` it is what the benchmarks time.
"""
import numpy as np

from .draws import StreamDraws
from privcd.kernels.dp_sgd import SAMPLE_WITHOUT_REPLACEMENT


def batch_without_replacement(draws, order, batch_size):
    """The kernel's partial Fisher-Yates shuffle of ``order`` (in place): the batch."""
    n = order.shape[0]
    offsets = draws.indices(n - np.arange(batch_size))
    for b, offset in enumerate(offsets):
        order[[b, b + offset]] = order[[b + offset, b]]
    return order[:batch_size].copy()


def poisson_batch(draws, n, log_keep):
    """Records visited by the kernel's geometric skips."""
    batch, i = [], -1
    while True:
        i += 1 + int(np.floor(draws.log_uniform() / log_keep))
        if i >= n:
            return np.array(batch, dtype=np.int64)
        batch.append(i)


def run(problem, plan, seed, draws=StreamDraws):
    """DP-SGD for ``plan`` from w = 0, random numbers from ``draws(seed, stream)``; returns the final iterate."""
    k = plan.kernel
    sampling, noise = draws(seed, 0), draws(seed, 1)
    X = problem.X.toarray() if problem.is_sparse else problem.X
    y = problem.y
    n, p = X.shape
    w = np.zeros(p)
    step, clip, b = k["step"], k["clip"], k["batch_size"]
    threshold = step * problem.lam
    order = np.arange(n)
    log_keep = np.log1p(-b / n) if b < n else -np.inf
    for _ in range(plan.n_iterations):
        if k["sampling"] == SAMPLE_WITHOUT_REPLACEMENT:
            batch = batch_without_replacement(sampling, order, b)
        else:
            batch = poisson_batch(sampling, n, log_keep)
        z = X[batch] @ w
        if problem.loss.name == "logistic":
            derivative = -y[batch] / (1.0 + np.exp(y[batch] * z))
        else:
            derivative = 2.0 * (z - y[batch])
        per_sample = derivative[:, None] * X[batch]
        norms = np.linalg.norm(per_sample, axis=1)
        per_sample *= np.minimum(1.0, clip / np.maximum(norms, 1e-300))[:, None]
        w = w - step / b * (per_sample.sum(axis=0) + k["noise_std"] * noise.normals(p))
        if problem.penalty.name == "l1":
            w = np.sign(w) * np.maximum(np.abs(w) - threshold, 0.0)
        elif problem.penalty.name == "l2":
            w = w / (1.0 + threshold)
    return w
