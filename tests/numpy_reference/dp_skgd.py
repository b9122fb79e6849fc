"""Plain numpy DP-SkGD: one Python iteration per block, numpy vector operations inside.

``run(problem, plan, seed) -> w`` applies the update of :mod:`privcd.kernels.dp_skgd` (dp-skgd
Algorithm 1: the block's clipped gradient entries at the current iterate, noise, coordinate-wise
proximal steps; averaging with ``inner_iterations``) for a plan of
:mod:`privcd.algorithms.dp_skgd`. It draws from the kernel's generator
(:func:`privcd.algorithms.base.kernel_rng`, ``np.random.default_rng(seed)``) in the kernel's order
(uniform: ``integers(0, p)`` then one normal; tau-nice: ``integers(k, p)`` for k < tau, a partial
Fisher-Yates shuffle of a persistent permutation; importance: uniforms for geometric skips and
thinning; full: nothing; then one normal per block entry): numba draws the same numbers from the
same PCG64 stream, so the reference follows the kernel's path and agrees with it to rounding.
"""
import numpy as np

from .dp_cd import dense_columns, derivatives, prox
from privcd.algorithms.base import kernel_rng
from privcd.algorithms.dp_skgd import kernel_arrays
from privcd.kernels.dp_skgd import SKETCH_IMPORTANCE, SKETCH_TAU_NICE, SKETCH_UNIFORM


def importance_block(rng, probabilities):
    """Independent inclusion with probabilities p_j, by the kernel's thinning of Bernoulli(max p_j) candidates."""
    p = probabilities.shape[0]
    top = probabilities.max()
    block = []
    j = -1
    while True:
        if top < 1.0:
            skip = np.floor(np.log(1.0 - rng.random()) / np.log1p(-top))
            if skip >= p - 1 - j:
                return np.array(block, dtype=np.int64)
            j += 1 + int(skip)
        else:
            j += 1
            if j == p:
                return np.array(block, dtype=np.int64)
        if probabilities[j] == top or rng.random() * top < probabilities[j]:
            block.append(j)


def draw_block(rng, k, order):
    """The block of one iteration, as the kernel draws it."""
    p = order.shape[0]
    if k["sketch"] == SKETCH_UNIFORM:
        return np.array([rng.integers(0, p)])
    if k["sketch"] == SKETCH_TAU_NICE:
        for i in range(k["tau"]):
            r = rng.integers(i, p)
            order[i], order[r] = order[r], order[i]
        return order[:k["tau"]].copy()
    if k["sketch"] == SKETCH_IMPORTANCE:
        return importance_block(rng, k["probabilities"])
    return np.arange(p)


def run(problem, plan, seed):
    """DP-SkGD for ``plan`` from w = 0; returns the final iterate (or average)."""
    k = plan.kernel
    step_sizes, thresholds, noise_std, noise_weights = kernel_arrays(problem, plan)
    rng = kernel_rng(seed)
    X = dense_columns(problem)
    n, p = X.shape
    inner = k["inner"]
    order = np.arange(p)
    w = np.zeros(p)
    z = np.zeros(n)
    states = np.zeros(p)
    for it in range(plan.n_iterations):
        block = draw_block(rng, k, order)
        if block.size:
            columns = X[:, block]
            C = thresholds[block]
            gradient = np.clip(derivatives(problem, z)[:, None] * columns, -C, C).sum(axis=0) / n
            factor = 1.0 if k["sketch"] == SKETCH_UNIFORM else np.sqrt(noise_weights[block].sum())
            noise = noise_std[block] * factor * rng.standard_normal(block.size)
            gamma = step_sizes[block]
            new = prox(problem, w[block] - gamma * (gradient + noise), gamma)
            z += columns @ (new - w[block])
            w[block] = new
        if inner:
            states += w
            if (it + 1) % inner == 0:
                w = states / inner
                states[:] = 0.0
                z = X @ w
    return w
